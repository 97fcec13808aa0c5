/**
 * JSON Schema handling at build time: pick the draft, check the schema is valid, and compile it to
 * an ajv standalone validator module (ESM source), so a service never compiles schemas at start-up.
 */
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import validateDraft07Schema from './generated/draft-07-meta.js';
import { META_CHECK_OPTIONS } from './meta-validator-source.js';
import { schemaKeywordProblems } from './schema-keywords.js';
import { schemaContradictions } from './schema-satisfiable.js';
import { schemaRegExp } from '../../runtime/regex/schema-pattern.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';

type AjvClass = new (opts: Options) => Ajv;

// The Ajv classes of the other drafts are loaded on first use: most services use only draft-07,
// and loading all three took ≈ 40 ms of every `pipec` start. They are CommonJS, so `require`
// loads them synchronously.
const require = createRequire(import.meta.url);
const otherDrafts = {
  'draft-04': (): AjvClass => {
    // ajv-draft-04 is CommonJS with `exports.default`.
    const module = require('ajv-draft-04') as { default?: AjvClass } & AjvClass;
    return module.default ?? module;
  },
  '2019-09': (): AjvClass => (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019,
  '2020-12': (): AjvClass => (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020,
} as const;

// These packages are CommonJS with `exports.default`; under NodeNext the default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;
const standaloneCode = ((standaloneCodeModule as unknown as { default?: unknown }).default ??
  standaloneCodeModule) as unknown as (ajv: Ajv, validate: unknown) => string;

export type Draft = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';
export const DRAFTS: readonly Draft[] = ['draft-04', 'draft-06', 'draft-07', '2019-09', '2020-12'];

/** The draft named by `$schema`, or undefined when absent or unrecognised. */
export function detectDraft(schema: unknown): Draft | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const id = (schema as { $schema?: unknown }).$schema;
  if (typeof id !== 'string') return undefined;
  if (id.includes('draft-04')) return 'draft-04';
  if (id.includes('draft-06')) return 'draft-06';
  if (id.includes('draft-07')) return 'draft-07';
  if (id.includes('2019-09')) return '2019-09';
  if (id.includes('2020-12')) return '2020-12';
  return undefined;
}

/** A schema checker compiled ahead of time, where there is one (see meta-validator-source.ts). */
type MetaValidator = ((schema: unknown) => boolean) & { errors?: Ajv['errors'] };
const PRECOMPILED_META: Partial<Record<Draft, MetaValidator>> = { 'draft-07': validateDraft07Schema as MetaValidator };

function createAjv(draft: Draft, forCode: boolean): Ajv {
  const opts: Options = {
    // allErrors, and verbose: errors carry the offending value, so violation messages can say what was found.
    ...META_CHECK_OPTIONS,
    // Validators run in a service: never let `$data` or remote refs reach out.
    loadSchema: undefined,
    // Checked before compiling, by the precompiled meta-validator where the draft has one.
    ...(PRECOMPILED_META[draft] ? { validateSchema: false } : {}),
    // `pattern` and `patternProperties` run on RE2 (linear time), also in the standalone modules.
    code: forCode ? { source: true, esm: true, regExp: schemaRegExp } : { regExp: schemaRegExp },
  };
  let ajv: Ajv;
  switch (draft) {
    case 'draft-04':
    case '2019-09':
    case '2020-12':
      ajv = new (otherDrafts[draft]())(opts);
      break;
    case 'draft-06':
    case 'draft-07':
      ajv = new Ajv(opts);
      break;
  }
  addFormats(ajv);
  return ajv;
}

export interface SchemaProblem {
  readonly message: string;
  /** Set for problems with a code of their own (patterns, formats); others are PIPE3006. */
  readonly code?: DiagnosticCode;
  readonly label?: string;
  readonly hint?: string;
  /** The meta-schema keyword that failed (enum, type, anyOf, …). */
  readonly keyword?: string;
  /** JSON pointer inside the schema, when ajv names one. */
  readonly pointer: string;
  /** The problem is the key at `pointer` (a misspelled keyword), not its value. */
  readonly onKey?: boolean;
}

/** ESM source of a standalone validator for the schema (the module's default export validates). */
export function compileValidatorModule(schema: unknown, draft: Draft): string {
  const ajv = createAjv(draft, true);
  const prepared = withoutSchemaId(schema, draft) as object;
  const problems = schemaProblems(ajv, draft, prepared);
  if (problems) throw new Error(`invalid ${draft} schema: ${problems.map((p) => p.message).join('; ')}`);
  const validate = ajv.compile(prepared);
  return standaloneCode(ajv, validate);
}

/**
 * `findings` are problems of a schema that compiles: contradictions no document satisfies and
 * misspelled keywords (schema-satisfiable.ts), reported with their own codes.
 */
export type SchemaOutcome =
  | { readonly ok: true; readonly code: string; readonly findings: readonly SchemaProblem[] }
  | { readonly ok: false; readonly problems: readonly SchemaProblem[] };

/**
 * Checks and compiles schemas for one compile run: one Ajv per draft (its meta-schemas are loaded
 * once, not per schema) and one result per distinct schema — services often share a schema
 * between many pipelines. Created per run, so nothing outlives it.
 */
export class SchemaCompiler {
  private readonly ajvs = new Map<Draft, Ajv>();
  private readonly outcomes = new Map<string, SchemaOutcome>();

  compile(schema: unknown, draft: Draft): SchemaOutcome {
    const key = `${draft}\u0000${JSON.stringify(schema)}`;
    let outcome = this.outcomes.get(key);
    if (!outcome) {
      outcome = this.compileFresh(schema, draft);
      this.outcomes.set(key, outcome);
    }
    return outcome;
  }

  private compileFresh(schema: unknown, draft: Draft): SchemaOutcome {
    if (schema === null || (typeof schema !== 'object' && typeof schema !== 'boolean')) {
      return { ok: false, problems: [{ message: 'a JSON Schema must be an object (or a boolean)', pointer: '' }] };
    }
    let ajv = this.ajvs.get(draft);
    if (!ajv) {
      ajv = createAjv(draft, true);
      this.ajvs.set(draft, ajv);
    }
    const prepared = withoutSchemaId(schema, draft) as object;
    const problems = schemaProblems(ajv, draft, prepared);
    if (problems) return { ok: false, problems };
    const keywordProblems = schemaKeywordProblems(prepared);
    const findings = schemaContradictions(prepared);
    // A schema no document satisfies gets no validator (the build fails); ajv would also refuse
    // some of them (an empty `enum`) with a message that names no keyword.
    const unsatisfiable = findings.some((f) => f.code === 'PIPE3050');
    if (keywordProblems.length > 0 || unsatisfiable) return { ok: false, problems: [...keywordProblems, ...findings] };
    try {
      return { ok: true, code: standaloneCode(ajv, ajv.compile(prepared)), findings };
    } catch (err) {
      // A second schema with an `$id` this Ajv already holds: compile it alone.
      if (err instanceof Error && /already exists/.test(err.message)) {
        const alone = createAjv(draft, true);
        try {
          return { ok: true, code: standaloneCode(alone, alone.compile(prepared)), findings };
        } catch (again) {
          return {
            ok: false,
            problems: [{ message: again instanceof Error ? again.message : String(again), pointer: '' }],
          };
        }
      }
      return { ok: false, problems: [{ message: err instanceof Error ? err.message : String(err), pointer: '' }] };
    }
  }

  private readonly checkers = new Map<Draft, Ajv>();

  /**
   * The violations of a literal value against a schema, for build-time checks of data written in
   * a .pipe file (an agent's mock answers); undefined when the schema does not compile (compile()
   * reports that).
   */
  violations(schema: unknown, draft: Draft, value: unknown): readonly ErrorObject[] | undefined {
    let ajv = this.checkers.get(draft);
    if (!ajv) {
      ajv = createAjv(draft, false);
      this.checkers.set(draft, ajv);
    }
    try {
      const validate = ajv.compile(withoutSchemaId(schema, draft) as object);
      return validate(value) ? [] : [...(validate.errors ?? [])];
    } catch {
      return undefined;
    }
  }
}

/** What is wrong with the schema against its draft's meta-schema; undefined when it is valid. */
function schemaProblems(ajv: Ajv, draft: Draft, schema: object): SchemaProblem[] | undefined {
  const precompiled = PRECOMPILED_META[draft];
  if (precompiled) return precompiled(schema) ? undefined : (precompiled.errors ?? []).map(problemOf);
  return ajv.validateSchema(schema) ? undefined : (ajv.errors ?? []).map(problemOf);
}

function problemOf(e: {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}): SchemaProblem {
  return {
    message: `\`${e.instancePath.split('/').filter(Boolean).join('.') || 'schema'}\` ${e.message ?? 'is invalid'}${Array.isArray(e.params['allowedValues']) ? ` (${(e.params['allowedValues'] as unknown[]).map(String).join(', ')})` : ''}`,
    pointer: e.instancePath,
    keyword: e.keyword,
  };
}

/** Draft-06 schemas say `$schema: …draft-06…`, which Ajv (draft-07) does not know: drop it after detection. */
function withoutSchemaId(schema: unknown, draft: Draft): unknown {
  if (draft !== 'draft-06' || !schema || typeof schema !== 'object') return schema;
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
}
