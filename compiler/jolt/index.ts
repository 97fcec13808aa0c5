/**
 * JOLT chains compiled to JavaScript. Input: the chain (an array of `{operation, spec}` as parsed from
 * a .pipe file or a JSON file) and a `Locate` mapping JSON paths inside it to host-file spans. Output:
 * the source of one JavaScript function expression `(input, context) => output` that uses only `J`
 * (the namespace import of runtime/jolt/index.ts), plus diagnostics. Spec problems are reported at
 * build time; at run time the generated code only walks data.
 */
import * as J from '../../runtime/jolt/index.js';
import type { ModifyFunction } from '../../runtime/jolt/functions.js';
import { hasErrors, type Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { type JsonPath, type Locate, Program, type SourceLine, isPlainObject, lit } from './emit.js';
import { compileShift, type ShiftOptions, WIDE_INPUT } from './shift.js';
import { compileDefault, parseDefaultSpec } from './default.js';
import { compileRemove, parseNodes } from './remove.js';
import { emitFixedShift, type FixedShift, fixedShift, fuseDefault, fuseRemove } from './fixed-shape.js';
import { compileCardinality } from './cardinality.js';
import { compileModify } from './modify.js';
import { MODIFY_MODES, OPERATIONS } from './operations.js';
import { locateInJson } from './locate.js';
import * as E from './errors.js';

export type { JsonPath, Locate, SourceLine } from './emit.js';
export { locateInJson } from './locate.js';

export interface CompiledJolt {
  readonly js: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** A chain operation supplied by the embedder: gets the step input, the context and its spec. */
export type CustomOperation = (input: unknown, context: unknown, spec: unknown) => unknown;

/** Functions and operations beyond the built-in ones; generated code reaches them as `X`. */
export interface JoltExtensions {
  readonly functions?: Readonly<Record<string, ModifyFunction>>;
  readonly operations?: Readonly<Record<string, CustomOperation>>;
}

/** Names of extensions the compiled code may call (the code then needs `X` in scope). */
export interface CompileOptions {
  readonly customFunctions?: readonly string[];
  readonly customOperations?: readonly string[];
  /** Where a span of the spec is (`orders.pipe:12`), for the comments of the generated code. */
  readonly sourceLine?: SourceLine;
  /** Whether shifts of a fixed output shape get their one-pass fast path (fixed-shape.ts); default true. */
  readonly fixedShape?: boolean;
  /**
   * A shift run that loops over an input list or map longer than this makes its maps keyed by the
   * data as dictionaries (J.dict); default WIDE_INPUT. Tests set 0 to run everything that way.
   */
  readonly wideOver?: number;
}

const SHORT_NAMES = Object.keys(OPERATIONS).filter((n) => !n.includes('.'));

/** Compiles a chain. `js` is a function expression; it is meaningful only when there are no errors. */
export function compileJoltChain(chain: unknown, locate: Locate, options: CompileOptions = {}): CompiledJolt {
  const prog = new Program(locate, options.sourceLine);
  const customOps = new Set(options.customOperations ?? []);
  const modifyOptions = { customFunctions: new Set(options.customFunctions ?? []) };
  const shiftOptions = { wideOver: options.wideOver ?? WIDE_INPUT };
  if (!Array.isArray(chain)) {
    prog.error(E.chainNotAList(describeType(chain)), [], 'value');
    return { js: '', diagnostics: prog.diagnostics };
  }
  if (chain.length === 0) {
    prog.error(E.emptyChain(), [], 'value');
    return { js: '', diagnostics: prog.diagnostics };
  }
  const calls = chain.map((entry, i) => compileEntry(prog, entry, i, customOps, modifyOptions, shiftOptions));
  const statements = chainStatements(prog, chain, calls, customOps, options.fixedShape ?? true);
  const js = [
    '(() => {',
    '  "use strict";',
    ...prog.declarations.map((d) => indent(d, 2)),
    "  /** The chain: each operation gets the previous one's output. */",
    '  return function joltChain(input, context) {',
    '    let value = input;',
    ...statements.map((c) => indent(c, 4)),
    '    return value;',
    '  };',
    '})()',
  ].join('\n');
  return { js, diagnostics: prog.diagnostics };
}

/** The operation an entry names (its short name), undefined for custom and unknown ones. */
function operationOf(entry: unknown, customOps: ReadonlySet<string>): string | undefined {
  if (!isPlainObject(entry) || typeof entry.operation !== 'string' || customOps.has(entry.operation)) return undefined;
  return OPERATIONS[entry.operation];
}

/**
 * The body of the chain function: one `value = step(value);` per operation, except that a shift
 * with a fixed output shape (fixed-shape.ts) and the defaults and removes right after it first try
 * their one-pass fast path, inline, running the general steps only when it declines the input.
 */
function chainStatements(
  prog: Program,
  chain: readonly unknown[],
  calls: readonly (string | undefined)[],
  customOps: ReadonlySet<string>,
  fixedShapes: boolean,
): string[] {
  const statements: string[] = [];
  for (let i = 0; i < chain.length; i++) {
    const call = calls[i];
    if (call === undefined) continue;
    const entry = chain[i] as Record<string, unknown>;
    const shape =
      fixedShapes && operationOf(entry, customOps) === 'shift' ? fixedShift(prog, entry.spec, [i, 'spec']) : undefined;
    if (shape === undefined) {
      statements.push(`value = ${call};`);
      continue;
    }
    let end = i + 1;
    for (; end < chain.length && calls[end] !== undefined; end++) {
      const next = chain[end] as Record<string, unknown>;
      const op = operationOf(next, customOps);
      const fused =
        op === 'default'
          ? fuseDefaultSpec(prog, shape, next.spec, [end, 'spec'])
          : op === 'remove' && isPlainObject(next.spec)
            ? fuseRemove(shape, parseNodes(prog, next.spec, [end, 'spec'], 0))
            : false;
      if (!fused) break;
    }
    const steps = chain.slice(i, end).map((e) => (e as Record<string, unknown>).operation as string);
    const labels = { declined: `fixedShape${i}`, done: `steps${i}` };
    statements.push(
      [
        `${labels.done}: {`,
        indent(emitFixedShift(shape, steps.join(', '), 'value', labels), 2),
        `  // the general steps, for input the fast path above declines`,
        ...calls.slice(i, end).map((c) => `  value = ${c ?? 'value'};`),
        `}`,
      ].join('\n'),
    );
    i = end - 1;
  }
  return statements;
}

function fuseDefaultSpec(prog: Program, shape: FixedShift, spec: unknown, path: JsonPath): boolean {
  const key = parseDefaultSpec(prog, spec, path);
  return key !== undefined && fuseDefault(prog, shape, key);
}

function indent(text: string, by: number): string {
  const pad = ' '.repeat(by);
  return text
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function compileEntry(
  prog: Program,
  entry: unknown,
  i: number,
  customOps: ReadonlySet<string>,
  modifyOptions: { customFunctions: ReadonlySet<string> },
  shiftOptions: ShiftOptions,
): string | undefined {
  if (!isPlainObject(entry)) {
    prog.error(E.operationNotAnObject(i, describeType(entry)), [i], 'value');
    return undefined;
  }
  const operation = entry.operation;
  if (typeof operation !== 'string') {
    const where: JsonPath = 'operation' in entry ? [i, 'operation'] : [i];
    prog.error(E.operationWithoutName(i, describeType(operation)), where, 'value');
    return undefined;
  }
  const specPath: JsonPath = [i, 'spec'];
  const spec = entry.spec;
  if (customOps.has(operation)) return `X.op[${lit(operation)}](value, context, ${prog.constant(spec ?? null)})`;
  const op = OPERATIONS[operation];
  if (op === undefined) {
    const near = SHORT_NAMES.filter((n) => n.startsWith(operation.slice(0, 3).toLowerCase()));
    prog.error(E.unknownOperation(operation, near.length > 0 ? near : SHORT_NAMES), [i, 'operation'], 'value');
    return undefined;
  }
  if (op === 'sort') return 'J.sort(value)';
  if (!('spec' in entry)) {
    prog.error(E.operationWithoutSpec(operation), [i], 'value');
    return undefined;
  }
  switch (op) {
    case 'shift':
      return `${compileShift(prog, spec, specPath, shiftOptions)}(value)`;
    case 'default':
      return `${compileDefault(prog, spec, specPath)}(value)`;
    case 'remove':
      return `${compileRemove(prog, spec, specPath)}(value)`;
    case 'cardinality':
      return `${compileCardinality(prog, spec, specPath)}(value)`;
    default:
      return `${compileModify(prog, spec, specPath, MODIFY_MODES[op] ?? 0, modifyOptions)}(value, context)`;
  }
}

/** The chain as a callable, for the CLI and tests. Diagnostics point into a synthetic `<spec>` file. */
export function joltToFunction(
  chain: unknown,
  extensions: JoltExtensions = {},
  options: Pick<CompileOptions, 'fixedShape' | 'wideOver'> = {},
): { fn?: (input: unknown, context?: unknown) => unknown; diagnostics: readonly Diagnostic[] } {
  let text: string;
  try {
    text = JSON.stringify(chain, null, 2) ?? 'null';
  } catch {
    text = 'null';
  }
  const compiled = compileJoltChain(chain, locateInJson('<spec>', text), {
    customFunctions: Object.keys(extensions.functions ?? {}),
    customOperations: Object.keys(extensions.operations ?? {}),
    ...options,
  });
  if (hasErrors(compiled.diagnostics)) return { diagnostics: compiled.diagnostics };
  const x = { fn: extensions.functions ?? {}, op: extensions.operations ?? {} };
  // The generated source is our own output over a parsed spec; every spec string in it is JSON-quoted.
  const factory = new Function('J', 'X', `return ${compiled.js};`) as (
    j: typeof J,
    x: unknown,
  ) => (input: unknown, context?: unknown) => unknown;
  return { fn: factory(J, x), diagnostics: compiled.diagnostics };
}
