/**
 * Renders docs/connectors/: one page per connector and trigger — parameters, header words, the
 * output (or, for a trigger, the first message), and how it fails — plus an index, all from the
 * registry's schema.json data (the registry loader finds the folders). `npm run docs:connectors`
 * writes them; test/connectors-doc.test.ts fails when they are stale.
 */
import type { ConnectorRegistry, ConnectorSchema, JsonSchema } from '../compiler/connectors/connector-registry.js';
import { retryDefaults } from '../compiler/check/check-policies.js';
import { describeRules } from '../compiler/check/param-rules.js';

const GENERATED = 'Generated from its `schema.json` by `npm run docs:connectors` — do not edit by hand.';

/** File name (relative to docs/connectors/) → content. */
export function renderConnectorDocs(registry: ConnectorRegistry): Map<string, string> {
  const pages = new Map<string, string>();
  const all = [...registry.triggers.values(), ...registry.connectors.values()];
  pages.set('README.md', renderIndex(registry));
  for (const schema of all) pages.set(pageName(schema), renderPage(schema));
  return pages;
}

const pageName = (schema: ConnectorSchema): string => `${schema.kind}-${schema.name}.md`;

function renderIndex(registry: ConnectorRegistry): string {
  const row = (s: ConnectorSchema): string => `| [\`${s.name}\`](${pageName(s)}) | ${cell(s.summary)} |`;
  return [
    '# Connectors and triggers',
    '',
    'Generated from the `schema.json` of each connector and trigger by `npm run docs:connectors` — do not',
    'edit by hand. `pipec schema NAME` prints the same data as JSON.',
    '',
    '## Triggers',
    '',
    '| trigger | what it does |',
    '|---|---|',
    ...[...registry.triggers.values()].map(row),
    '',
    '## Connectors',
    '',
    '| connector | what it does |',
    '|---|---|',
    ...[...registry.connectors.values()].map(row),
    '',
    "Every step may also end with `504 TIMEOUT` when its pipeline's `timeout` passes. A connector",
    'with `fail-on-error: false` does not end the execution when it fails: the next step gets',
    "`{ success: false, message, error, code, kind, … }` (`kind`: the error kind to route on; the error's details",
    'included) instead of its output.',
    '',
  ].join('\n');
}

function renderPage(schema: ConnectorSchema): string {
  const title =
    schema.kind === 'trigger'
      ? `trigger ${schema.name} { … }`
      : `${schema.name}${(schema.positional ?? []).map((p) => ` ${p.toUpperCase()}`).join('')} [label] { … }`;
  const lines = [`# \`${title}\``, '', GENERATED, '', schema.summary, ''];
  lines.push(...renderParameters(schema));
  lines.push(...renderRules(schema));
  lines.push(...(schema.kind === 'trigger' ? renderTriggerMessage(schema) : renderOutput(schema)));
  lines.push(...renderErrors(schema));
  if (schema.kind === 'connector') lines.push(...renderRetry(schema));
  return `${lines.join('\n').trimEnd()}\n`;
}

// ─────────────────────────────── parameters ───────────────────────────────

interface ParamRow {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly required: boolean;
}

function renderParameters(schema: ConnectorSchema): string[] {
  const out = ['## Parameters', ''];
  const positional = schema.positional ?? [];
  if (positional.length > 0) {
    out.push(
      `Header words: ${positional.map((p) => `\`${p}\``).join(', ')} — written between \`${schema.name}\` and its \`{\`, then an optional step label (\`${schema.name} ${positional.map((p) => p.toUpperCase()).join(' ')} my-label { … }\`).`,
      '',
    );
  }
  const rows = paramRows(schema.params, '', 0);
  if (rows.length === 0) return [...out, 'None.', ''];
  out.push('| parameter | type | required | default | `{{ }}` | description |', '|---|---|---|---|---|---|');
  for (const row of rows) {
    const s = row.schema;
    const braces =
      s['x-pipe-braces'] === true ? 'yes' : typeof s['x-pipe-refuses-braces'] === 'string' ? 'no: query text' : '';
    const accountTypes = s['x-pipe-account-types'];
    const types = Array.isArray(accountTypes) ? accountTypes.map((t) => `\`${String(t)}\``).join(' or ') : '';
    const ref =
      typeof s['x-pipe-ref'] === 'string' ? ` (names a declared ${types ? `${types} ` : ''}${s['x-pipe-ref']})` : '';
    const unit = typeof s['x-pipe-unit'] === 'string' ? ` (${s['x-pipe-unit']})` : '';
    const secret =
      s['x-pipe-secret'] === 'sink'
        ? ' Leaves the service: an account value here is error PIPE4201 unless wrapped in `DECLASSIFY(…)`.'
        : s['x-pipe-secret'] === 'credential'
          ? ' Takes account values (credentials).'
          : '';
    const fallback = s['default'] !== undefined ? `\`${JSON.stringify(s['default'])}\`` : '';
    const description = typeof s['description'] === 'string' ? s['description'] : '';
    out.push(
      `| \`${row.name}\` | ${cell(typeText(s))}${unit} | ${row.required ? 'yes' : ''} | ${cell(fallback)} | ${braces} | ${cell(description + ref + secret)} |`,
    );
  }
  return [...out, ''];
}

/** The rules between parameters (`if`/`then`, `oneOf` of `required`, `dependentRequired`), one row each. */
function renderRules(schema: ConnectorSchema): string[] {
  const rules = describeRules(schema.params);
  if (rules.length === 0) return [];
  const list = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');
  const alternatives = (all: readonly (readonly string[])[]): string =>
    all.map((names) => names.map((n) => `\`${n}\``).join(' and ')).join(' or ');
  const out = [
    '## Rules between parameters',
    '',
    'Checked at build time: a missing parameter is PIPE3002, one the case does not take PIPE3015. A rule whose',
    'condition reads a value known only at run time (`{{ }}`, `env()`) is not applied.',
    '',
    '| where | when | needs | exactly one of | at least one of | does not take |',
    '|---|---|---|---|---|---|',
  ];
  for (const rule of rules) {
    const where = rule.where === '' ? 'the step' : `\`${rule.where}\``;
    out.push(
      `| ${schema.kind === 'trigger' && rule.where === '' ? 'the trigger' : where} | ${cell(rule.when)} | ${list(rule.needs)} | ${alternatives(rule.oneOf)} | ${alternatives(rule.atLeastOneOf)} | ${list(rule.refuses)} |`,
    );
  }
  return [...out, ''];
}

/** The properties of an object schema, then those of its object and array-of-object properties (`a.b`, `a[].b`). */
function paramRows(schema: JsonSchema, prefix: string, depth: number): ParamRow[] {
  const properties = schema['properties'];
  if (!properties || typeof properties !== 'object' || depth > 2) return [];
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  const rows: ParamRow[] = [];
  for (const [key, child] of Object.entries(properties as Record<string, JsonSchema>)) {
    const name = `${prefix}${key}`;
    rows.push({ name, schema: child, required: required.has(key) });
    rows.push(...paramRows(child, `${name}.`, depth + 1));
    const items = child['items'];
    if (items && typeof items === 'object' && !Array.isArray(items))
      rows.push(...paramRows(items as JsonSchema, `${name}[].`, depth + 1));
  }
  return rows;
}

/** A schema's type in a few words: `string`, `integer ≥ 1`, `"mask" \| "off"`, `array of object`, `file or array of file`. */
function typeText(s: JsonSchema): string {
  if (Array.isArray(s['enum'])) return (s['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in s) return JSON.stringify(s['const']);
  const alternatives = (s['anyOf'] ?? s['oneOf']) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) return alternatives.map(typeText).join(' or ');
  if (typeof s['$ref'] === 'string') return (s['$ref'] as string).split('/').pop() ?? 'value';
  const type = Array.isArray(s['type'])
    ? (s['type'] as string[]).join(' or ')
    : typeof s['type'] === 'string'
      ? (s['type'] as string)
      : 'any';
  const bounds: string[] = [];
  if (typeof s['minimum'] === 'number') bounds.push(`≥ ${s['minimum']}`);
  if (typeof s['maximum'] === 'number') bounds.push(`≤ ${s['maximum']}`);
  if (typeof s['minLength'] === 'number' && s['minLength'] > 0) bounds.push(`length ≥ ${s['minLength']}`);
  if (typeof s['maxLength'] === 'number') bounds.push(`length ≤ ${s['maxLength']}`);
  const items = s['items'];
  const of =
    type === 'array' && items && typeof items === 'object' && !Array.isArray(items)
      ? ` of ${typeText(items as JsonSchema)}`
      : '';
  // `format: regex`: compiled at build time by the runtime's engine (check-params.ts).
  const regex = s['format'] === 'regex' ? ' (regular expression, ECMAScript syntax on RE2)' : '';
  return `${type}${regex}${of}${bounds.length > 0 ? ` ${bounds.join(', ')}` : ''}`;
}

// ─────────────────────────────── output ───────────────────────────────

function renderOutput(schema: ConnectorSchema): string[] {
  const out = ['## Output', ''];
  const rule = schema.output;
  const read = schema.message?.read;
  const instead = typeof read === 'object' && schema.message?.passedThrough !== true ? read.unless : undefined;
  // A step that reads `unless` instead of the message, and does not pass the message through, passes that on.
  if (rule === 'input' && instead !== undefined)
    out.push(
      `The incoming message, unchanged — or, when \`${instead}\` is given, the value of \`${instead}\`: the step passes on what it worked on.`,
    );
  else if (rule === 'input') out.push('The incoming message, unchanged: the step passes it on.');
  else if (typeof rule === 'string') out.push(`The value of \`${rule.slice('params.'.length)}\`, evaluated.`);
  else if (rule && typeof rule === 'object') out.push(...shapeText(rule));
  else
    out.push(
      'Computed from the parameters; the compiler works out its shape from them where it can (a JOLT spec, a JSLT query, the actions).',
    );
  if (schema.message?.read === 'never') out.push('', 'The step does not read its incoming message.');
  return [...out, ''];
}

function renderTriggerMessage(schema: ConnectorSchema): string[] {
  const rule = schema.output;
  const out = ['## First message', '', 'What the first step receives as `message`.', ''];
  if (rule && typeof rule === 'object') out.push(...shapeText(rule));
  return [...out, ''];
}

/** A shape as a sentence and a field table (alternatives one after the other). */
function shapeText(shape: JsonSchema): string[] {
  const alternatives = (shape['anyOf'] ?? shape['oneOf']) as JsonSchema[] | undefined;
  if (Array.isArray(alternatives)) {
    return alternatives.flatMap((alt, i) => [
      `${i === 0 ? '' : '\n'}${typeof alt['description'] === 'string' ? `**${alt['description']}:**` : `**Alternative ${i + 1}:**`}`,
      '',
      ...fieldTable(alt),
    ]);
  }
  const lead = typeof shape['description'] === 'string' ? [shape['description'] as string, ''] : [];
  const table = fieldTable(shape);
  return [...lead, ...(table.length > 0 ? table : lead.length > 0 ? [] : [`A value of type ${typeText(shape)}.`])];
}

function fieldTable(shape: JsonSchema): string[] {
  const rows = paramRows(shape, '', 0);
  if (rows.length === 0) return [];
  return [
    '| field | type | always there | description |',
    '|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.name}\` | ${cell(typeText(r.schema))} | ${r.required ? 'yes' : ''} | ${cell(typeof r.schema['description'] === 'string' ? r.schema['description'] : '')} |`,
    ),
  ];
}

// ─────────────────────────────── errors ───────────────────────────────

function renderErrors(schema: ConnectorSchema): string[] {
  const errors = schema['x-pipe-errors'] ?? [];
  const out = ['## Errors', ''];
  if (errors.length === 0) {
    out.push(
      schema.kind === 'trigger'
        ? 'None of its own.'
        : 'None of its own (its `{{ }}` expressions can still fail, with 500).',
    );
  } else {
    out.push('| status | kind | when |', '|---|---|---|');
    for (const e of errors) out.push(`| ${e.status ?? ''} | ${e.kind ? `\`${e.kind}\`` : ''} | ${cell(e.when)} |`);
  }
  const failOnError = (schema.params['properties'] as Record<string, JsonSchema> | undefined)?.['fail-on-error'];
  if (failOnError) {
    const byDefault =
      failOnError['default'] === true ? 'ends the execution by default' : 'does not end the execution by default';
    out.push(
      '',
      `A failure ${byDefault} (\`fail-on-error: ${String(failOnError['default'] ?? false)}\`); see the [index](README.md).`,
    );
  }
  return [...out, ''];
}

/** What the step option `retry` does on this connector (docs/reliability.md). */
function renderRetry(schema: ConnectorSchema): string[] {
  const out = ['## Retry', ''];
  const defaults = retryDefaults(schema);
  if (!defaults) {
    out.push('`retry` does not apply: none of its failures can pass on another attempt (PIPE3012).');
    return [...out, ''];
  }
  const kinds = defaults.kinds.length > 0 ? defaults.kinds.map((k) => `\`${k}\``).join(', ') : 'none by kind';
  out.push(
    `With \`retry\` (see [docs/reliability.md](../reliability.md#retries-the-step-option-retry)): ${defaults.attempts} attempts,`,
    `waits from ${defaults.initialMs} ms growing ×${defaults.multiplier} up to ${defaults.maxDelayMs} ms with jitter, within ${defaults.budgetMs} ms;`,
    defaults.statuses.length > 0
      ? `retried: ${kinds}, and a failure whose \`details.status\` (the other side's answer) is ${defaults.statuses.join(', ')}.`
      : `retried: ${kinds}.`,
  );
  const facts = schema['x-pipe-retry'];
  if (facts?.output)
    out.push(
      `An answer whose \`${facts.output.status}\` is one of those statuses is retried too (Retry-After honoured).`,
    );
  if (facts?.unsafe) out.push('', `A retried call may not be idempotent (warning PIPE3014): ${facts.unsafe.how}.`);
  return [...out, ''];
}

/** Text for one table cell: no line breaks, `|` escaped. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}
