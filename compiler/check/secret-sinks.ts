/**
 * Where secrets may not go. A value whose type holds a secret (compiler/types/secret.ts: an
 * account's value, or anything computed from one) is error PIPE4201 when it reaches a place
 * outside the service: the body and headers of `respond`, the message of `fail` (the language's
 * own steps call `checkSecretSink`), and every connector parameter whose schema says
 * `"x-pipe-secret": "sink"` (`checkSinkParams`: log lines, events, the Object Store, prompts).
 * Every other parameter takes secrets: `"x-pipe-secret": "credential"` only documents one made for
 * them (rest `headers`). The error is at each `{{ … }}` that carries a secret, so a template or an
 * object with two of them reports both; `DECLASSIFY(…)` around a value lets it leave.
 *
 * Example: after `json-generator { json: { token: "{{ account.crm.token }}" } }`,
 * `respond 200 { t: "{{ message.token }}" }` is PIPE4201 at `{{ message.token }}`.
 */
import type { BracesValue, ObjectValue, Value } from '../ast/ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import { analyzeBraces, type BracesEnv } from '../braces/index.js';
import { pathText } from '../braces/check.js';
import { paramProperties, type ConnectorSchema } from '../connectors/connector-registry.js';
import { entryOf } from '../ast/literal.js';
import { secretIn } from '../types/secret.js';
import { secretLeaves } from './errors.js';

/** The schema mark of a parameter that is a way out of the service. */
export const SINK = 'sink';

/**
 * Reports every `{{ … }}` of `value` that holds a secret. `sink` names the place for the message:
 * "the body of `respond`". Expressions with errors of their own were reported where they were
 * compiled and are skipped here.
 */
export function checkSecretSink(value: Value, env: BracesEnv, sink: string, diagnostics: Diagnostic[]): void {
  for (const braces of bracesIn(value)) {
    const leak = secretOf(braces, env);
    if (leak) diagnostics.push(secretLeaves({ ...leak, at: braces.span, sink }));
  }
}

/** The parameters of a connector step that its schema marks `"x-pipe-secret": "sink"`. */
export function checkSinkParams(
  schema: ConnectorSchema,
  params: ObjectValue,
  env: BracesEnv,
  diagnostics: Diagnostic[],
): void {
  const properties = paramProperties(schema);
  for (const key of Object.keys(properties)) {
    if (properties[key]?.['x-pipe-secret'] !== SINK) continue;
    const value = entryOf(params, key);
    if (value) checkSecretSink(value, env, `the \`${key}\` of \`${schema.name}\``, diagnostics);
  }
}

/** Every `{{ … }}` in a value, alone or in a template, at any depth of its arrays and objects. */
function* bracesIn(value: Value): Generator<BracesValue> {
  switch (value.kind) {
    case 'braces':
      yield value;
      return;
    case 'template':
      for (const part of value.parts) if (part.kind === 'braces') yield part;
      return;
    case 'array':
      for (const item of value.items) yield* bracesIn(item);
      return;
    case 'object':
    case 'tagged':
      for (const entry of (value.kind === 'object' ? value : value.value).entries)
        if (entry.kind === 'entry') yield* bracesIn(entry.value);
      return;
    default:
      return;
  }
}

interface Leak {
  readonly from: string;
  readonly declaredAt: Span | undefined;
  readonly carried: string | undefined;
  readonly expression: string;
}

/** The secret an expression's value holds, with the message path that carried it there, if any. */
function secretOf(braces: BracesValue, env: BracesEnv): Leak | undefined {
  const { expr, check, diagnostics } = analyzeBraces(braces, env);
  if (!expr || !check || diagnostics.some((d) => d.severity === 'error')) return undefined;
  const mark = secretIn(check.type);
  if (!mark) return undefined;
  const paths = [...check.refs.keys()];
  const readsAccount = paths.some((p) => p === 'account' || p.startsWith('account.') || p.startsWith('account['));
  const carriers = [...check.refs].filter(([, type]) => secretIn(type) !== undefined).map(([path]) => path);
  const deepest = carriers.sort((a, b) => b.length - a.length)[0];
  return {
    from: mark.from,
    declaredAt: mark.declaredAt,
    carried: readsAccount ? undefined : (deepest ?? pathText(expr) ?? 'message'),
    expression: braces.text.trim(),
  };
}
