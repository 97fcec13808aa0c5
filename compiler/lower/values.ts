/**
 * Compiles AST values to JavaScript expressions (with their types), for step parameters, respond
 * bodies and JSON Generator templates. `{{ }}` parts go through the Double Braces compiler with the
 * message shape at that step; constant values stay literals that codegen can hoist.
 */
import type { ObjectValue, Value } from '../ast/ast.js';
import { compileBraces, compileTemplate, type BracesEnv } from '../braces/index.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { JsExpr } from './plan.js';
import { arrayOf, BOOLEAN, NULL, NUMBER, STRING, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { widen } from '../types/type-ops.js';
import { keepSecret } from '../types/secret.js';

export interface CompiledValue extends JsExpr {
  readonly type: PipeType;
}

/** `"key"` or, for keys an object literal would treat specially, a computed key (own property). */
export function propertyKey(key: string): string {
  return key === '__proto__' ? `["__proto__"]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}

export interface ValueOptions {
  /** `reference`: env("X") becomes `{ $env: "X" }`, resolved once when the service starts (accounts, globals). */
  readonly envStyle?: 'call' | 'reference';
}

export function compileValue(
  value: Value,
  env: BracesEnv,
  diagnostics: Diagnostic[],
  opts: ValueOptions = {},
): CompiledValue {
  switch (value.kind) {
    case 'string':
      return { js: JSON.stringify(value.value), constant: true, type: { kind: 'string', enum: [value.value] } };
    case 'number':
      return {
        js: numberLiteral(value.value),
        constant: true,
        type: Number.isInteger(value.value) ? { kind: 'number', integer: true } : NUMBER,
      };
    case 'duration':
      return { js: String(value.ms), constant: true, type: { kind: 'number', integer: true } };
    case 'size':
      return { js: String(value.bytes), constant: true, type: { kind: 'number', integer: true } };
    case 'boolean':
      return { js: String(value.value), constant: true, type: BOOLEAN };
    case 'null':
      return { js: 'null', constant: true, type: NULL };
    case 'ident':
      return { js: JSON.stringify(value.name), constant: true, type: STRING };
    case 'env':
      if (opts.envStyle === 'reference') {
        return {
          js: `{ $env: ${JSON.stringify(value.name)}${value.fallback !== undefined ? `, default: ${JSON.stringify(value.fallback)}` : ''} }`,
          constant: true,
          type: STRING,
        };
      }
      return {
        js: `R.env(${JSON.stringify(value.name)}${value.fallback !== undefined ? `, ${JSON.stringify(value.fallback)}` : ''})`,
        constant: true,
        type: STRING,
      };
    case 'braces': {
      const compiled = compileBraces(value, env);
      diagnostics.push(...compiled.diagnostics);
      return { js: compiled.js, constant: false, type: compiled.type };
    }
    case 'template': {
      // A string that is exactly one `{{ expr }}` keeps the expression's type (HCL's rule):
      // `files: "{{ message.files }}"` passes the array, not its text.
      const only = value.parts.length === 1 ? value.parts[0] : undefined;
      if (only?.kind === 'braces') {
        const typed = compileBraces(only, env);
        diagnostics.push(...typed.diagnostics);
        return { js: typed.js, constant: false, type: typed.type };
      }
      const compiled = compileTemplate(value, env);
      diagnostics.push(...compiled.diagnostics);
      return { js: compiled.js, constant: false, type: compiled.type };
    }
    case 'array': {
      const items = value.items.map((item) => compileValue(item, withoutExpected(env), diagnostics, opts));
      return {
        js: `[${items.map((i) => i.js).join(', ')}]`,
        constant: items.every((i) => i.constant),
        type: arrayOf(items.length === 0 ? UNKNOWN : unionOf(items.map((i) => i.type))),
      };
    }
    case 'object':
      return compileObject(value, withoutExpected(env), diagnostics, new Set(), opts);
    case 'tagged': {
      const inner = compileObject(value.value, withoutExpected(env), diagnostics, new Set(), opts);
      return {
        js: `{ type: ${JSON.stringify(value.tag)}, ${inner.js.slice(1)}`,
        constant: inner.constant,
        type: UNKNOWN,
      };
    }
  }
}

/** The type an entry of an object must have, and why (a connector parameter's declared type). */
export type ExpectedOf = (key: string) => { readonly type: PipeType; readonly why: string } | undefined;

export function compileObject(
  value: ObjectValue,
  env: BracesEnv,
  diagnostics: Diagnostic[],
  skip: ReadonlySet<string> = new Set(),
  opts: ValueOptions = {},
  expectedOf?: ExpectedOf,
): CompiledValue {
  const parts: string[] = [];
  const fields: Record<string, FieldType> = {};
  let constant = true;
  for (const entry of value.entries) {
    if (entry.kind !== 'entry' || skip.has(entry.key)) continue;
    // Only an expression is checked against the declared type here; literals are checked by ajv.
    const expected =
      expectedOf && (entry.value.kind === 'braces' || entry.value.kind === 'template')
        ? expectedOf(entry.key)
        : undefined;
    const compiled = compileValue(entry.value, expected ? { ...env, expected } : env, diagnostics, opts);
    constant &&= compiled.constant;
    parts.push(`${propertyKey(entry.key)}: ${compiled.js}`);
    Object.defineProperty(fields, entry.key, { value: { type: compiled.type, required: true }, enumerable: true });
  }
  return {
    js: parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`,
    constant,
    type: { kind: 'object', fields, open: false },
  };
}

/** The parts of an array or object are not what the whole is expected to be. */
function withoutExpected(env: BracesEnv): BracesEnv {
  if (!env.expected) return env;
  const { expected: _whole, ...rest } = env;
  return rest;
}

function numberLiteral(n: number): string {
  return Object.is(n, -0) ? '-0' : String(n);
}

/** A union without duplicates of structurally equal members; one member stays itself; secrets stay. */
export function unionOf(types: readonly PipeType[]): PipeType {
  return keepSecret(plainUnionOf(types), types);
}

function plainUnionOf(types: readonly PipeType[]): PipeType {
  const members: PipeType[] = [];
  const seen = new Set<string>();
  for (const t of types) {
    if (t.kind === 'unknown') return UNKNOWN;
    for (const m of t.kind === 'union' ? t.members : [t]) {
      const widened = m.kind === 'string' && m.enum ? widen(m) : m;
      const key = JSON.stringify(widened);
      if (!seen.has(key)) {
        seen.add(key);
        members.push(widened);
      }
    }
  }
  if (members.length === 0) return UNKNOWN;
  if (members.length === 1) return members[0] as PipeType;
  return { kind: 'union', members };
}
