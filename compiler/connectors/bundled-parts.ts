/**
 * Exists only for speed: the compile-time parts of pipec's own connectors and triggers built into
 * the CLI bundle, by `<group>/<name>`, so `pipec check` imports no module per folder at start-up.
 * Empty here; compiler/cli/bundle-cli.ts replaces this module in the bundle with one listing every
 * folder's compile.js. The registry loader still finds the folders by looking; it only takes the
 * module from here when the bundle has it.
 */
export const BUNDLED_PARTS: ReadonlyMap<string, unknown> = new Map();
