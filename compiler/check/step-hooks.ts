/**
 * Build-time work that depends on the connector. Generic rules come from the schema's data:
 * header words become parameters (`x-pipe-split` splits one word into two), `x-pipe-ref` names
 * are resolved (accounts → their fields at run time, schemas → the schema, pipelines and stores
 * must exist; a pipeline reference is an execute edge), `x-pipe-steps` blocks run on a failure
 * output. Then the connector's own compile-time part runs, when its folder has one: the registry's
 * named table `connectorCompilers` (runtime/connectors/<name>/compile.ts).
 */
import type { Step } from '../ast/ast.js';
import { entryOf, stepsEntryOf } from '../ast/literal.js';
import type { Span } from '../../base/source/span.js';
import { paramProperties, type ConnectorSchema } from '../connectors/connector-registry.js';
import type { StepHookInput, StepHookResult } from '../connectors/hook-api.js';
import { refOf, splitOf, splitWord } from '../connectors/schema-facts.js';
import { checkExists } from '../resolve/references.js';
import { checkAccountType } from './account-types.js';
import { resolveSchemaValue } from '../resolve/schema-refs.js';
import { COMPILE_API } from './compile-api.js';

export interface StepHooksOutcome extends StepHookResult {
  /** Steps of the `x-pipe-steps` block (validate's `on-fail { … }`), run when the output is a failure. */
  readonly onFailSteps?: readonly Step[];
}

/** Header words split by `x-pipe-split` (in place): `store orders.find` → store, operation. */
export function splitHeaderWords(
  schema: ConnectorSchema,
  extra: Record<string, unknown>,
  extraSpans: Record<string, Span>,
): void {
  for (const [key, property] of Object.entries(paramProperties(schema))) {
    const split = splitOf(property);
    const text = extra[key];
    const span = extraSpans[key];
    if (!split || typeof text !== 'string' || !span) continue;
    const parts = splitWord(text, span, split);
    delete extra[key];
    delete extraSpans[key];
    Object.assign(extra, parts.values);
    Object.assign(extraSpans, parts.spans);
  }
}

export function applyStepHooks(input: StepHookInput): StepHooksOutcome {
  const result: StepHookResult = { replaced: new Set(), params: {} };
  for (const [key, value] of Object.entries(input.extra))
    result.params[key] = { js: JSON.stringify(value), constant: true };
  applyReferences(input, result);
  let onFailSteps: readonly Step[] | undefined;
  for (const [key, property] of Object.entries(paramProperties(input.schema))) {
    if (property['x-pipe-steps'] === true) onFailSteps = stepsEntryOf(input.step.params, key)?.steps ?? onFailSteps;
    // A build-time declaration (`external: true`): nothing for the runtime.
    if (property['x-pipe-boundary'] === true) result.replaced.add(key);
  }
  input.ctx.facts.registry.connectorCompilers.get(input.schema.name)?.step(input, result, COMPILE_API);
  // Blocks of steps are never data: drop them from the generic parameters.
  for (const entry of input.step.params.entries) if (entry.kind === 'steps-entry') result.replaced.add(entry.key);
  return onFailSteps ? Object.assign(result, { onFailSteps }) : result;
}

/** `x-pipe-ref` marks: account → fields at run time; schema name → the schema; pipeline/store → must exist. */
function applyReferences({ step, schema, ctx, extra, extraSpans }: StepHookInput, result: StepHookResult): void {
  for (const [key, property] of Object.entries(paramProperties(schema))) {
    const ref = refOf(property);
    if (ref === undefined) continue;
    const value = entryOf(step.params, key);
    const written =
      value && (value.kind === 'ident' || value.kind === 'string')
        ? value.kind === 'ident'
          ? value.name
          : value.value
        : undefined;
    const name = written ?? (typeof extra[key] === 'string' ? (extra[key] as string) : undefined);
    const span = value?.span ?? extraSpans[key] ?? step.connectorSpan;
    if (name === undefined) continue;
    switch (ref) {
      case 'account':
        if (checkExists(ctx.diagnostics, ctx.facts.decls, 'account', name, span)) {
          checkAccountType(
            ctx.diagnostics,
            ctx.facts.decls,
            property,
            name,
            span,
            `\`${key}\` of connector \`${schema.name}\``,
          );
          result.params['accountFields'] = { js: `ctx.accounts[${JSON.stringify(name)}]`, constant: false };
        }
        break;
      case 'pipeline':
        checkExists(ctx.diagnostics, ctx.facts.decls, 'pipeline', name, span);
        // The called pipeline waits for this one's slot while it runs: cycles need concurrency.
        ctx.executes.push({ from: ctx.pipeline, to: name, span });
        break;
      case 'store':
        checkExists(ctx.diagnostics, ctx.facts.decls, 'store', name, span);
        break;
      case 'schema':
        if (value) {
          const resolved = resolveSchemaValue(value, ctx.facts.decls, ctx.diagnostics);
          if (resolved !== undefined) {
            result.replaced.add(key);
            result.params[key] = { js: JSON.stringify(resolved), constant: true };
          }
        }
        break;
      case 'event':
        // Events are names shared with subscribers, possibly in other services: nothing to resolve.
        break;
    }
  }
}
