/**
 * ajv's regular-expression engine (`code.regExp`) for JSON Schema `pattern` and
 * `patternProperties`: ECMAScript patterns on RE2, so a request cannot make validation backtrack
 * (`^([a-z0-9]+)*$` against 29 bytes held a service for 9 s on JavaScript's RegExp).
 *
 * ajv calls it once per pattern while generating a validator at build time, and its `code` names
 * it in the standalone module, which imports it (compiler/codegen/generate-service.ts). Compiling
 * waits for the first test, so a service starts without loading the engine. The compiler checks
 * every pattern beforehand (PIPE5504 / PIPE5505): a pattern reaching here runs.
 */
import { compileRegex, type Re2Pattern } from './index.js';

/** The name the generated validator modules import the engine under. */
export const SCHEMA_REGEXP_NAME = 'schemaRegExp';

class SchemaPattern {
  private compiled: Re2Pattern | undefined;

  constructor(private readonly source: string) {}

  test(text: string): boolean {
    this.compiled ??= compileRegex(this.source, 'ecmascript');
    return this.compiled.test(text);
  }

  /** ajv keys its scope values by this text. */
  toString(): string {
    return `/${this.source}/u`;
  }
}

/** `regExp(pattern, flags)` as ajv calls it; ajv passes `u` (unicodeRegExp), which is how RE2 reads patterns anyway. */
export const schemaRegExp = Object.assign(
  (pattern: string, _flags: string): SchemaPattern => new SchemaPattern(pattern),
  {
    code: SCHEMA_REGEXP_NAME,
  },
);
