/**
 * THE catalogue of diagnostic codes. A code is created only here (through the per-area files
 * in ./codes/) and never reused. Ranges:
 *   PIPE1xxx syntax (lexer, parser, {{ }} syntax, embedded JSON/JOLT/JSLT syntax)
 *   PIPE2xxx names (connectors, steps, pipelines, events, stores, accounts, schemas, globals)
 *   PIPE3xxx connector and trigger configuration against its schema
 *   PIPE4xxx {{ }} types, functions and message shapes; 42xx secrets (account values) leaving the service
 *   PIPE5xxx JOLT (5001–5299) / JSLT (5300–5499) / JSONPath, regex, cron (5500–5599)
 *   PIPE6xxx control flow (reachability, choice, capsules, concurrency); 61xx contracts between pipelines
 *   PIPE7xxx pipeline tests (`test` blocks run by `pipec test`)
 *   PIPE9xxx internal errors (pipec bugs) and limits
 * docs/diagnostics.md is generated from this catalogue (`npm run docs:codes`) and a test keeps it fresh.
 */
import type { Diagnostic, Label, Severity } from './diagnostic.js';
import type { Span } from '../source/span.js';
import { syntaxCodes } from './codes/syntax.js';
import { nameCodes } from './codes/names.js';
import { configCodes } from './codes/config.js';
import { bracesCodes } from './codes/braces.js';
import { transformCodes } from './codes/transform.js';
import { flowCodes } from './codes/flow.js';
import { contractCodes } from './codes/contracts.js';
import { secretCodes } from './codes/secrets.js';
import { internalCodes } from './codes/internal.js';
import { patternCodes } from './codes/patterns.js';
import { testingCodes } from './codes/testing.js';
import { neverMatchCodes } from './codes/never-match.js';

export interface CodeInfo {
  readonly title: string;
  readonly severity: Severity;
  readonly phase: 'lex' | 'parse' | 'resolve' | 'check' | 'emit' | 'internal';
  /** Long-form help: what the error means and how to fix it (printed by `pipec explain`). */
  readonly explain: string;
}

export type CodeTable = Readonly<Record<string, CodeInfo>>;

/**
 * Every table of ./codes/, each written `{ … } as const satisfies CodeTable` so that its keys stay
 * literal types. A new table is added here; a new code is one entry in a table.
 */
const TABLES = [
  syntaxCodes,
  nameCodes,
  configCodes,
  bracesCodes,
  secretCodes,
  transformCodes,
  flowCodes,
  contractCodes,
  patternCodes,
  testingCodes,
  neverMatchCodes,
  internalCodes,
] as const;

/**
 * The closed set of codes: a code not in a table is a type error at the call site
 * (test/diagnostic-codes-type.test.ts proves it with the TypeScript compiler).
 */
export type DiagnosticCode = KeysOfEach<(typeof TABLES)[number]> & string;

/** The keys of every member of a union (plain `keyof` gives only the keys they share). */
type KeysOfEach<T> = T extends unknown ? keyof T : never;

function mergeTables(tables: readonly CodeTable[]): Readonly<Record<DiagnosticCode, CodeInfo>> {
  const merged: Record<string, CodeInfo> = {};
  for (const table of tables) {
    for (const [code, info] of Object.entries(table)) {
      if (merged[code]) throw new Error(`diagnostic code ${code} is defined twice`);
      merged[code] = info;
    }
  }
  return merged as Record<DiagnosticCode, CodeInfo>;
}

export const CODES: Readonly<Record<DiagnosticCode, CodeInfo>> = mergeTables(TABLES);

/** True for a catalogued code (for codes read from text: `pipec explain`, data files). */
export function isDiagnosticCode(code: string): code is DiagnosticCode {
  return Object.hasOwn(CODES, code);
}

export interface DiagnosticFacts {
  readonly message: string;
  readonly span: Span;
  /** Short phrase under the caret. Defaults to empty. */
  readonly label?: string;
  readonly secondary?: readonly Label[];
  readonly body?: readonly string[];
  readonly hint?: string;
  /** Override the catalogue severity (rare: e.g. a lint promoted to error). */
  readonly severity?: Severity;
}

/** Builds a diagnostic for a catalogued code. Throws only on an unknown code (a pipec bug). */
export function diagnostic(code: DiagnosticCode, facts: DiagnosticFacts): Diagnostic {
  const info = CODES[code];
  // A code that passed the type check but is missing (a cast, a code read from data) is a pipec bug.
  if (!info) throw new Error(`unknown diagnostic code ${code}`);
  return {
    code,
    severity: facts.severity ?? info.severity,
    title: info.title,
    message: facts.message,
    primary: { span: facts.span, message: facts.label ?? '' },
    secondary: facts.secondary ?? [],
    body: facts.body ?? [],
    ...(facts.hint !== undefined ? { hint: facts.hint } : {}),
  };
}
