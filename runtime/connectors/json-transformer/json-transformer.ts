/**
 * JSON Transformer: rename, edit, remove and remove-if actions applied at a dotted path (arrays on
 * the way are traversed). Values and conditions are {{ }} expressions over `item` (the object being
 * changed), compiled at build time into functions. Works on a copy: earlier steps' outputs
 * (`step.<label>`) are never changed behind their back. Keys are plain data (no prototype writes).
 */
import { PipeError } from '../../errors.js';
import type { ConnectorRun, ExecutionContext, Json, JsonObject } from '../../types.js';

type ItemFunction = (item: Json, message: Json, ctx: ExecutionContext) => Json;

export interface TransformerAction {
  readonly type: 'rename' | 'edit' | 'remove' | 'remove-if';
  readonly path?: string;
  readonly key?: string;
  readonly to?: string;
  readonly keys?: readonly string[];
  readonly value?: ItemFunction;
  readonly condition?: ItemFunction;
}

export interface JsonTransformerParams {
  readonly actions: readonly TransformerAction[];
}

export const run: ConnectorRun<JsonTransformerParams> = async (params, message, ctx) => {
  const root = structuredClone(message);
  for (const action of params.actions) {
    for (const target of objectsAt(root, splitPath(action.path))) applyAction(action, target, message, ctx);
  }
  return root;
};

function splitPath(path: string | undefined): string[] {
  return path ? path.split('.').filter((s) => s !== '') : [];
}

/** The objects at a dotted path; arrays met on the way (and at the end) are traversed. */
export function objectsAt(root: Json, segments: readonly string[]): JsonObject[] {
  let current: Json[] = [root];
  for (const segment of segments) {
    const next: Json[] = [];
    for (const node of current.flatMap(expandArrays)) {
      if (Object.hasOwn(node, segment)) next.push(node[segment] as Json);
    }
    current = next;
  }
  return current.flatMap(expandArrays);
}

function expandArrays(node: Json): JsonObject[] {
  if (Array.isArray(node)) return node.flatMap(expandArrays);
  return node !== null && typeof node === 'object' ? [node] : [];
}

function setOwn(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function applyAction(action: TransformerAction, target: JsonObject, message: Json, ctx: ExecutionContext): void {
  switch (action.type) {
    case 'rename': {
      if (!action.key || !action.to)
        throw new PipeError('rename needs `key` and `to`', { code: 500, kind: 'JSON_TRANSFORMER' });
      if (!Object.hasOwn(target, action.key)) return;
      const value = target[action.key] as Json;
      delete target[action.key];
      setOwn(target, action.to, value);
      return;
    }
    case 'edit': {
      if (!action.key || !action.value)
        throw new PipeError('edit needs `key` and `value`', { code: 500, kind: 'JSON_TRANSFORMER' });
      setOwn(target, action.key, action.value(target, message, ctx));
      return;
    }
    case 'remove':
      for (const key of action.keys ?? (action.key ? [action.key] : []))
        if (Object.hasOwn(target, key)) delete target[key];
      return;
    case 'remove-if': {
      if (!action.key || !action.condition)
        throw new PipeError('remove-if needs `key` and `condition`', { code: 500, kind: 'JSON_TRANSFORMER' });
      if (Object.hasOwn(target, action.key) && action.condition(target, message, ctx) === true)
        delete target[action.key];
      return;
    }
  }
}
