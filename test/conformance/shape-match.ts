/**
 * Checks a JSON value against a message shape (for the property tests of inferred shapes): why the
 * value is not of the type, with the JSON path where it breaks; and a shape loosened the way a loose
 * schema is (every object open, every field optional, string enums forgotten).
 */
import type { FieldType, PipeType } from '../../compiler/types/pipe-type.js';

/** Why `value` is not of type `t` (undefined when it is), with the JSON path where it breaks. */
export function mismatch(t: PipeType, value: unknown, at = '$'): string | undefined {
  switch (t.kind) {
    case 'unknown':
      return undefined;
    case 'null':
      return value === null ? undefined : `${at}: expected null, got ${JSON.stringify(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${at}: expected boolean, got ${JSON.stringify(value)}`;
    case 'number':
      return typeof value === 'number' && (!t.integer || Number.isInteger(value))
        ? undefined
        : `${at}: expected ${t.integer ? 'integer' : 'number'}, got ${JSON.stringify(value)}`;
    case 'string':
      return typeof value === 'string' && (!t.enum || t.enum.includes(value))
        ? undefined
        : `${at}: expected string${t.enum ? ` ${JSON.stringify(t.enum)}` : ''}, got ${JSON.stringify(value)}`;
    case 'array': {
      if (!Array.isArray(value)) return `${at}: expected a list, got ${JSON.stringify(value)}`;
      for (const [i, item] of value.entries()) {
        const problem = mismatch(t.items, item, `${at}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        return `${at}: expected an object, got ${JSON.stringify(value)}`;
      const map = value as Record<string, unknown>;
      for (const [name, field] of Object.entries(t.fields)) {
        if (field.required && !Object.hasOwn(map, name)) return `${at}: required field ${name} is absent`;
      }
      for (const [name, v] of Object.entries(map)) {
        const field = Object.hasOwn(t.fields, name) ? t.fields[name] : undefined;
        if (!field) {
          if (!t.open) return `${at}: field ${name} is not in the closed shape`;
          continue;
        }
        const problem = mismatch(field.type, v, `${at}.${name}`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'union': {
      const problems = t.members.map((m) => mismatch(m, value, at));
      return problems.some((p) => p === undefined) ? undefined : problems.join(' / ');
    }
  }
}

/** The shape with every object open and every field optional (what a loose schema says). */
export function loosened(t: PipeType): PipeType {
  switch (t.kind) {
    case 'array':
      return { kind: 'array', items: loosened(t.items) };
    case 'object': {
      const fields: Record<string, FieldType> = {};
      for (const [k, f] of Object.entries(t.fields)) fields[k] = { type: loosened(f.type), required: false };
      return { kind: 'object', fields, open: true };
    }
    case 'string':
      return { kind: 'string' };
    case 'union':
      return { kind: 'union', members: t.members.map(loosened) };
    default:
      return t;
  }
}
