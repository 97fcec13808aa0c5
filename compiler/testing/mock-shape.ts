/**
 * Mock outputs against a connector's declared output shape (its schema.json `output`, as a PipeType):
 * which given fields do not fit (wrong type, or a field the shape does not have), and the complete
 * output with the required fields the mock left out filled with empty values. The top level of a
 * declared shape is treated as closed, so a misspelt field (`stauts`) is caught. Pure.
 */
import { describeType } from '../types/type-ops.js';
import type { FieldType, PipeType } from '../types/pipe-type.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import { defineOwn, escapePointer } from '../ast/literal.js';

export interface ShapeProblem {
  /** JSON pointer of the value (`/status`), or of the key for unknown fields. */
  readonly pointer: string;
  readonly unknownKey: boolean;
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'string' ? 'the string' : typeof value === 'number' ? 'the number' : 'the boolean'} ${JSON.stringify(value)}`;
}

/** Problems of `value` against `type`; missing required fields are not problems (they are filled). */
export function shapeProblems(value: unknown, type: PipeType, closedTop = true): ShapeProblem[] {
  const out: ShapeProblem[] = [];
  walk(value, type, '', closedTop, out);
  return out;
}

function walk(value: unknown, type: PipeType, pointer: string, closed: boolean, out: ShapeProblem[]): void {
  const mismatch = (): void => {
    out.push({ pointer, unknownKey: false, message: `expected ${describeType(type)}, found ${describeValue(value)}` });
  };
  switch (type.kind) {
    case 'unknown':
      return;
    case 'null':
      if (value !== null) mismatch();
      return;
    case 'boolean':
      if (typeof value !== 'boolean') mismatch();
      return;
    case 'number':
      if (typeof value !== 'number' || (type.integer && !Number.isInteger(value))) mismatch();
      return;
    case 'string':
      if (typeof value !== 'string' || (type.enum && type.enum.length > 0 && !type.enum.includes(value))) mismatch();
      return;
    case 'array':
      if (!Array.isArray(value)) mismatch();
      else value.forEach((item, i) => walk(item, type.items, `${pointer}/${i}`, false, out));
      return;
    case 'object': {
      if (!isRecord(value)) {
        mismatch();
        return;
      }
      const fields = Object.keys(type.fields);
      for (const key of Object.keys(value)) {
        const field: FieldType | undefined = Object.prototype.hasOwnProperty.call(type.fields, key)
          ? type.fields[key]
          : undefined;
        const child = `${pointer}/${escapePointer(key)}`;
        if (field) walk(value[key], field.type, child, false, out);
        else if (closed || !type.open) {
          const close = suggest(key, fields);
          out.push({
            pointer: child,
            unknownKey: true,
            message: `the output has no field \`${key}\`${close ? ` (did you mean \`${close}\`?)` : ''}`,
          });
        }
      }
      return;
    }
    case 'union': {
      let best: ShapeProblem[] | undefined;
      for (const member of type.members) {
        const problems: ShapeProblem[] = [];
        walk(value, member, pointer, closed, problems);
        if (problems.length === 0) return;
        if (!best || problems.length < best.length) best = problems;
      }
      out.push(...(best ?? []));
      return;
    }
  }
}

/** The empty value of a type: `""`, `0`, `false`, `[]`, an object with its required fields, or null. */
export function emptyValue(type: PipeType): unknown {
  switch (type.kind) {
    case 'string':
      return type.enum?.[0] ?? '';
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return withDefaults({}, type);
    case 'union': {
      const member = type.members.find((m) => m.kind !== 'null');
      return member ? emptyValue(member) : null;
    }
    default:
      return null;
  }
}

/** `value` with the required fields it leaves out filled with empty values (recursively). */
export function withDefaults(value: unknown, type: PipeType): unknown {
  if (type.kind === 'union') {
    // The member the value fits with its own fields (unknown keys count), e.g. hash's `{ valid }` output.
    const member = type.members.find((m) => shapeProblems(value, m, true).length === 0) ?? type.members[0];
    return member ? withDefaults(value, member) : value;
  }
  if (type.kind === 'array' && Array.isArray(value)) return value.map((item) => withDefaults(item, type.items));
  if (type.kind !== 'object' || !isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const field = Object.prototype.hasOwnProperty.call(type.fields, key) ? type.fields[key] : undefined;
    defineOwn(out, key, field ? withDefaults(item, field.type) : item);
  }
  for (const [key, field] of Object.entries(type.fields)) {
    if (field.required && !Object.prototype.hasOwnProperty.call(out, key)) defineOwn(out, key, emptyValue(field.type));
  }
  return out;
}
