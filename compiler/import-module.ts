/**
 * Imports an ES module by URL at run time (`pipec test` loads the service it just generated).
 * The CLI bundle replaces this module with one that calls the loader's `import()` (bundle-cli.ts):
 * code in a vm script cannot run `import()` itself in Node 20.
 */
export function importModule(url: string): Promise<unknown> {
  return import(url);
}
