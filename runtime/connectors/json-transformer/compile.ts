/**
 * Compile-time part of `json-transformer`: each action's `value` and `condition` are `{{ }}` over
 * `item` (the element being transformed) and become module-level functions, typed against the
 * message at this step; the other fields of an action stay values. The output shape is the
 * message's with the actions applied (`outputShape`).
 */
import type { ConnectorCompiler, PipeType, Value } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, ctx, message, label }, result, api) {
    const actions = api.entryOf(step.params, 'actions');
    if (!actions || actions.kind !== 'array') return;
    const env = ctx.bracesEnv(message, { item: api.types.UNKNOWN });
    const valueTypes = new Map<Value, PipeType>();
    const compiledActions = actions.items.map((action, i) => {
      if (action.kind !== 'object') return 'undefined';
      const parts: string[] = [];
      for (const entry of action.entries) {
        if (entry.kind !== 'entry') continue;
        if (entry.key === 'value' || entry.key === 'condition') {
          const compiled = api.compileValue(entry.value, env, ctx);
          valueTypes.set(entry.value, compiled.type);
          const fn = ctx.hoist(
            `${label ?? 'transformer'}-action${i + 1}-${entry.key}`,
            `(item: Json, message: Json, ctx: ExecutionContext): Json => ${compiled.js}`,
            `json-transformer action ${i + 1}: ${entry.key}`,
          );
          parts.push(`${entry.key}: ${fn}`);
        } else {
          parts.push(`${api.propertyKey(entry.key)}: ${api.compileValue(entry.value, env, ctx).js}`);
        }
      }
      return `{ ${parts.join(', ')} }`;
    });
    result.replaced.add('actions');
    result.params['actions'] = { js: `[${compiledActions.join(', ')}]`, constant: true };
    const output = outputShape(actions, message, (value) => valueTypes.get(value) ?? api.types.UNKNOWN, api);
    // With fail-on-error off the compiler adds the failure's fields to an object shape; a value that
    // is no object could not show them.
    const stops = api.entryOf(step.params, 'fail-on-error');
    result.output =
      (stops?.kind === 'boolean' && stops.value) || output.kind === 'object' || output.kind === 'null'
        ? output
        : api.types.UNKNOWN;
  },
};

/**
 * The output shape: the message shape with each action applied, in order, to the objects at its
 * path (arrays on the way and at the end traversed, as the run time's `objectsAt` does). What a
 * shape cannot tell stays open: a field an open object may hold is `unknown` once renamed into
 * place, an edited value whose type is not clear is `unknown`, and a path, key or value that is not
 * plain text makes the whole output `unknown`. Secrets keep their mark wherever they move.
 */
function outputShape(
  actions: Value,
  message: PipeType,
  valueType: (value: Value) => PipeType,
  api: Parameters<ConnectorCompiler['step']>[2],
): PipeType {
  if (actions.kind !== 'array') return api.types.UNKNOWN;
  let shape = message;
  for (const action of actions.items) {
    if (action.kind !== 'object') return api.types.UNKNOWN;
    const text = (key: string): string | undefined | null => {
      const value = api.entryOf(action, key);
      if (value === undefined) return undefined;
      const json = api.staticJson(value);
      return typeof json === 'string' ? json : null;
    };
    const type = text('type');
    const path = text('path');
    const key = text('key');
    if (type === null || path === null || key === null || type === undefined) return api.types.UNKNOWN;
    const segments = (path ?? '').split('.').filter((s) => s !== '');
    let change: ((o: ObjectShape) => ObjectShape) | undefined;
    if (type === 'rename') {
      const to = text('to');
      if (key === undefined || typeof to !== 'string') return api.types.UNKNOWN;
      change = (o) => renamed(o, key, to, api.types.UNKNOWN);
    } else if (type === 'edit') {
      const value = api.entryOf(action, 'value');
      if (key === undefined || value === undefined) return api.types.UNKNOWN;
      const edited = valueType(value);
      change = (o) => withField(o, key, { type: edited, required: true });
    } else if (type === 'remove') {
      const keysValue = api.entryOf(action, 'keys');
      const keys = keysValue === undefined ? (key === undefined ? [] : [key]) : api.staticJson(keysValue);
      if (!Array.isArray(keys) || !keys.every((k): k is string => typeof k === 'string')) return api.types.UNKNOWN;
      change = (o) => withoutFields(o, keys);
    } else if (type === 'remove-if') {
      if (key === undefined) return api.types.UNKNOWN;
      change = (o) => {
        const field = o.fields[key];
        return field ? withField(o, key, { type: field.type, required: false }) : o;
      };
    } else {
      return api.types.UNKNOWN;
    }
    shape = atPath(shape, segments, change);
  }
  return shape;
}

type ObjectShape = Extract<PipeType, { kind: 'object' }>;
type Field = ObjectShape['fields'][string];

/** Applies `change` to every object shape at the path (arrays traversed on the way and at the end). */
function atPath(shape: PipeType, segments: readonly string[], change: (o: ObjectShape) => ObjectShape): PipeType {
  switch (shape.kind) {
    case 'union':
      return { ...shape, members: shape.members.map((m) => atPath(m, segments, change)) };
    case 'array':
      return { ...shape, items: atPath(shape.items, segments, change) };
    case 'object': {
      const [first, ...rest] = segments;
      if (first === undefined) return change(shape);
      const field = Object.hasOwn(shape.fields, first) ? shape.fields[first] : undefined;
      if (!field) return shape; // a closed object lacks it (nothing changes); an open one's is unknown already
      return withField(shape, first, { type: atPath(field.type, rest, change), required: field.required });
    }
    default:
      return shape; // unknown stays unknown; a scalar or null is no object: nothing changes there
  }
}

function withField(o: ObjectShape, key: string, field: Field): ObjectShape {
  const { sentBy: _sentBy, ...rest } = o;
  return { ...rest, fields: { ...o.fields, [key]: field } };
}

function withoutFields(o: ObjectShape, keys: readonly string[]): ObjectShape {
  const { sentBy: _sentBy, ...rest } = o;
  const fields = { ...o.fields };
  for (const key of keys) delete fields[key];
  return { ...rest, fields };
}

/** `rename key → to` on one object: the value moves when the object has `key`. */
function renamed(o: ObjectShape, key: string, to: string, unknown: PipeType): ObjectShape {
  if (key === to) return o;
  const from = Object.hasOwn(o.fields, key) ? o.fields[key] : undefined;
  const old = Object.hasOwn(o.fields, to) ? o.fields[to] : undefined;
  if (!from) {
    if (!o.open) return o; // a closed object never has `key`: nothing moves
    // An open object may hold `key` with a value of any type.
    return old ? withField(o, to, { type: unknown, required: old.required }) : o;
  }
  const moved: Field = from.required
    ? { type: from.type, required: true }
    : old || o.open
      ? { type: unknown, required: old?.required ?? false }
      : { type: from.type, required: false };
  return withField(withoutFields(o, [key]), to, moved);
}
