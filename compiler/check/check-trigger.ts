/**
 * Phase `check` for triggers: the trigger must be known, its parameters are checked against its
 * schema, then its compile-time part (runtime/triggers/<name>/compile.ts, the registry's named
 * table `triggerCompilers`) turns them into the fields of its run-time spec and tells the shape of
 * the first message. Yields the spec as a JS object literal: `kind`, those fields, and the span kind
 * the schema's `x-pipe-span` gives executions it starts.
 */
import type { TriggerDecl } from '../ast/ast.js';
import { entryOf, staticJson } from '../ast/literal.js';
import { unknownTrigger } from './errors.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import { paramProperties, type ConnectorSchema } from '../connectors/connector-registry.js';
import { checkExists } from '../resolve/references.js';
import { checkAccountType } from './account-types.js';
import type { TriggerHookOutput } from '../connectors/hook-api.js';
import type { TriggerPlan } from '../lower/plan.js';
import { propertyKey } from '../lower/values.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { checkParams } from './check-params.js';
import { COMPILE_API } from './compile-api.js';
import type { PipelineContext } from './context.js';
import type { EnvelopeDemand } from './envelope-demand.js';
import { schemaToType } from './shapes.js';

/**
 * `envelope`: the envelope fields the pipeline reads (envelope-demand.ts), for triggers whose
 * schema says `x-pipe-envelope`; they build only those. Absent or 'all': every field.
 */
export function checkTrigger(
  trigger: TriggerDecl,
  ctx: PipelineContext,
  envelope: EnvelopeDemand = 'all',
): { plan: TriggerPlan; message: PipeType } | undefined {
  const schema = ctx.facts.registry.triggers.get(trigger.kind);
  if (!schema) {
    const names = [...ctx.facts.registry.triggers.keys()];
    const close = suggest(trigger.kind, names);
    ctx.diagnostics.push(unknownTrigger(trigger.kind, trigger.kindSpan, names, close));
    return undefined;
  }
  const checked = checkParams(
    schema,
    trigger.config,
    {},
    { what: 'trigger', name: trigger.kind, nameSpan: trigger.kindSpan },
    ctx.facts.validators,
  );
  ctx.diagnostics.push(...checked.diagnostics);
  checkTriggerAccounts(trigger, schema, ctx);
  const part = ctx.facts.registry.triggerCompilers.get(trigger.kind);
  const out = part ? part.trigger({ trigger, schema, ctx, envelope }, COMPILE_API) : plainTrigger(trigger, schema);
  const span = schema['x-pipe-span'];
  const fields = [
    `kind: ${JSON.stringify(trigger.kind)}`,
    ...Object.entries(out.spec).map(([key, js]) => `${propertyKey(key)}: ${js}`),
    ...(span ? [`spanKind: ${JSON.stringify(span.kind)}`] : []),
  ];
  return {
    plan: {
      kind: trigger.kind,
      module: schema.module ?? `triggers/${trigger.kind}/${trigger.kind}`,
      spec: `{ ${fields.join(', ')} }`,
    },
    message: out.message,
  };
}

/** Parameters marked `x-pipe-ref: account`: the account exists and is of a type the trigger takes. */
function checkTriggerAccounts(trigger: TriggerDecl, schema: ConnectorSchema, ctx: PipelineContext): void {
  for (const [key, property] of Object.entries(paramProperties(schema))) {
    if (property['x-pipe-ref'] !== 'account') continue;
    const value = entryOf(trigger.config, key);
    const name = value?.kind === 'ident' ? value.name : value?.kind === 'string' ? value.value : undefined;
    if (!value || name === undefined) continue;
    if (!checkExists(ctx.diagnostics, ctx.facts.decls, 'account', name, value.span)) continue;
    checkAccountType(
      ctx.diagnostics,
      ctx.facts.decls,
      property,
      name,
      value.span,
      `\`${key}\` of trigger \`${trigger.kind}\``,
    );
  }
}

/**
 * A trigger without a compile-time part: its parameters (literal JSON) are its spec's `config`,
 * and its first message has the shape of its schema's `output`.
 */
function plainTrigger(trigger: TriggerDecl, schema: ConnectorSchema): TriggerHookOutput {
  const output = schema.output;
  return {
    spec: { config: JSON.stringify(staticJson(trigger.config) ?? {}) },
    message: output !== null && typeof output === 'object' ? schemaToType(output) : UNKNOWN,
  };
}
