/**
 * Compile-time part of `store`: the operation named in the header (`store orders.find`) must be
 * one the Object Store knows; the declared store's `expire-after` travels with the step; the output
 * shape follows the operation (reads answer `{ data, rowCount }`, writes `{ data: [], updateCount }`).
 * The store name itself is checked by its `x-pipe-ref` (schema.json). A `$regex` written in the
 * query or an aggregate's stages is compiled as the store compiles it (ECMAScript on RE2, with its
 * `$options`), so a pattern RE2 cannot run fails the build instead of the request (PIPE5504/5505),
 * and every operator written in a query (or an aggregate's `$match`) must be one the store's query
 * parser takes (PIPE3033): it would refuse the request with 400 BAD_QUERY.
 */
import type {
  CompileApi,
  ConnectorCompiler,
  ConnectorSchema,
  Diagnostic,
  ObjectValue,
  PipeType,
  ShapeKit,
  Span,
  Value,
} from '../../../compiler/connectors/hook-api.js';

function operationsOf(schema: ConnectorSchema): string[] {
  const property = (schema.params['properties'] as Record<string, { enum?: unknown }> | undefined)?.['operation'];
  return Array.isArray(property?.enum) ? property.enum.filter((o): o is string => typeof o === 'string') : [];
}

/** Operations answering `{ data: [...], rowCount }`; the others answer `{ data: [], updateCount }`. */
const READS = ['find', 'find-by-id', 'aggregate', 'list-indexes'];

export const compile: ConnectorCompiler = {
  step({ step, schema, ctx, extra, extraSpans }, result, api) {
    // The operations are the `operation` enum of schema.json (the one list; run-time store.ts follows it).
    const operations = operationsOf(schema);
    const store = extra['store'];
    const operation = extra['operation'];
    const word = step.args[0];
    if (typeof store !== 'string' || typeof operation !== 'string' || !word) return;
    if (!operations.includes(operation)) {
      const close = api.suggest(operation, operations);
      const named = extraSpans['operation'];
      ctx.diagnostics.push(
        api.diagnostic('PIPE2012', {
          message: named
            ? `unknown store operation \`${operation}\``
            : `a store step names its operation: \`store ${store}.find { … }\``,
          span: named ?? word.span,
          label: close ? `did you mean \`${close}\`?` : 'unknown operation',
          body: [`Operations: ${operations.map((o) => `\`${o}\``).join(', ')}.`],
        }),
      );
    }
    // The same rule as the service's store list (check-declarations.ts storeExpireSeconds): a duration, or a
    // number of milliseconds (as every duration), in whole seconds rounded up.
    const expire = api.entryOf(ctx.facts.decls.stores.get(store)?.options, 'expire-after');
    const ms = expire?.kind === 'duration' ? expire.ms : expire?.kind === 'number' ? expire.value : 0;
    result.params['storeOptions'] = {
      js: JSON.stringify({ expireAfterSeconds: Math.ceil(ms / 1000) }),
      constant: true,
    };
    result.output = outputOf(operation, api.types);
    for (const key of ['query', 'pipeline']) {
      const written = api.entryOf(step.params, key);
      if (written) ctx.diagnostics.push(...regexProblems(written, api));
    }
    const query = api.entryOf(step.params, 'query');
    if (query?.kind === 'object') ctx.diagnostics.push(...operatorProblems(query, 'query', api));
    const stages = api.entryOf(step.params, 'pipeline');
    for (const stage of stages?.kind === 'array' ? stages.items : []) {
      const match = stage.kind === 'object' ? api.entryOf(stage, '$match') : undefined;
      if (match?.kind === 'object') ctx.diagnostics.push(...operatorProblems(match, 'query', api));
    }
  },
};

/** Each literal `$regex` (with a literal or no `$options`) in a query or stages that RE2 cannot run. */
function regexProblems(value: Value, api: CompileApi): Diagnostic[] {
  if (value.kind === 'array') return value.items.flatMap((item) => regexProblems(item, api));
  if (value.kind !== 'object') return [];
  const out: Diagnostic[] = [];
  const pattern = api.entryOf(value, '$regex');
  const options = api.entryOf(value, '$options');
  if (pattern?.kind === 'string' && (options === undefined || options.kind === 'string')) {
    const problem = api.queryRegexProblem(pattern.value, options?.value ?? '');
    if (problem)
      out.push(
        api.diagnostic(problem.needsBacktracking ? 'PIPE5504' : 'PIPE5505', {
          message: `the $regex ${JSON.stringify(pattern.value)} ${problem.needsBacktracking ? 'needs a backtracking engine' : 'is not a valid regular expression'}: ${problem.message}`,
          span: pattern.span,
          label: problem.needsBacktracking ? 'needs backtracking' : 'invalid pattern',
          hint: problem.needsBacktracking
            ? 'rewrite it without lookaround or backreferences: the store runs $regex on RE2, which is linear-time'
            : '$regex is an ECMAScript regular expression, run on RE2',
        }),
      );
  }
  for (const entry of value.entries) if (entry.kind === 'entry') out.push(...regexProblems(entry.value, api));
  return out;
}

/**
 * Each `$` key of a written query the store's parser does not take: at the top of a query (or of an
 * `$and`/`$or`/`$nor` item) only the joining operators; in a field's condition (`{ $gte: 1 }`, and
 * inside `$not`) only the field operators. Values computed at run time are not looked into.
 */
function operatorProblems(value: ObjectValue, level: 'query' | 'condition', api: CompileApi): Diagnostic[] {
  const { logical, field } = api.queryOperators;
  const out: Diagnostic[] = [];
  for (const entry of value.entries) {
    if (entry.kind !== 'entry') continue;
    const { key, value: inner } = entry;
    if (!key.startsWith('$')) {
      const condition = level === 'query' && inner.kind === 'object';
      if (condition && inner.entries.some((e) => e.kind === 'entry' && e.key.startsWith('$')))
        out.push(...operatorProblems(inner, 'condition', api));
      continue;
    }
    const known = level === 'query' ? logical : field;
    if (!known.includes(key)) {
      out.push(unknownOperator(key, entry.keySpan, known, level === 'query' ? field : logical, api));
      continue;
    }
    if (level === 'query' && inner.kind === 'array') {
      for (const item of inner.items) if (item.kind === 'object') out.push(...operatorProblems(item, 'query', api));
    }
    if (key === '$not' && inner.kind === 'object') out.push(...operatorProblems(inner, 'condition', api));
  }
  return out;
}

function unknownOperator(
  key: string,
  span: Span,
  known: readonly string[],
  elsewhere: readonly string[],
  api: CompileApi,
): Diagnostic {
  const close = api.suggest(key, known);
  const misplaced = elsewhere.includes(key);
  return api.diagnostic('PIPE3033', {
    message: misplaced
      ? `\`${key}\` ${known.includes('$and') ? "belongs in a field's condition, not at the top of a query" : "joins queries: it belongs at the top of a query, not in a field's condition"}`
      : `unknown query operator \`${key}\``,
    span,
    label: close ? `did you mean \`${close}\`?` : misplaced ? 'misplaced operator' : 'unknown operator',
    body: [`Here the Object Store takes ${known.map((o) => `\`${o}\``).join(', ')}.`],
    hint: misplaced
      ? known.includes('$and')
        ? `write it beside a field: \`{ field: { ${key}: … } }\``
        : `write it at the top: \`{ ${key}: [ … ] }\``
      : 'the store would refuse the request (400 BAD_QUERY)',
  });
}

function outputOf(operation: string, t: ShapeKit): PipeType {
  // list-indexes rows are closed: `{ name, key, unique }`.
  const docs: PipeType =
    operation === 'list-indexes'
      ? t.closed({ name: t.STRING, key: t.objectOf({}, true), unique: t.BOOLEAN })
      : t.objectOf({}, true);
  const data = { type: t.arrayOf(docs), required: true };
  if (READS.includes(operation))
    return { kind: 'object', open: false, fields: { data, rowCount: { type: t.INTEGER, required: true } } };
  // Writes (store.ts `run`): `{ data: [], updateCount }`, and an insert's `ids`.
  const updateCount = { type: t.INTEGER, required: true };
  return operation === 'insert'
    ? { kind: 'object', open: false, fields: { data, updateCount, ids: { type: t.arrayOf(t.STRING), required: true } } }
    : { kind: 'object', open: false, fields: { data, updateCount } };
}
