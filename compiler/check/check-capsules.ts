/**
 * Capsules: named, reusable sequences of steps with typed parameters and an output contract.
 *   capsule enrich-customer(crm-url: string, region: string) -> Customer { steps }
 * A capsule is checked once (its body sees `capsule.<param>`), compiled to its own module, and used
 * as a step like a connector: `enrich-customer { crm-url: "…", region: "BR" }`. Parameters are
 * checked like a connector's (a schema derived from the declaration); the contract gives the next
 * step its message shape and is enforced on the capsule's output at run time.
 */
import type { CapsuleDecl, Value } from '../ast/ast.js';
import type { ConnectorSchema, JsonSchema } from '../connectors/connector-registry.js';
import { unknownCapsuleParamType } from './errors.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { CapsulePlan } from '../lower/plan.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import { checkBlock } from './check-steps.js';
import { PipelineContext, type ServiceFacts, type StepShape } from './context.js';
import { resolveSchemaValue, schemaLocator } from '../resolve/schema-refs.js';
import { schemaToType } from './shapes.js';

export const CAPSULE_PARAM_TYPES: Readonly<Record<string, JsonSchema>> = {
  string: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  object: { type: 'object' },
  array: { type: 'array' },
  any: {},
};

/** The parameter schema of a capsule, in the registry's format (so calls are checked like connectors). */
export function capsuleSchema(decl: CapsuleDecl): ConnectorSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const param of decl.params) {
    properties[param.name] = {
      ...(CAPSULE_PARAM_TYPES[param.type ?? 'any'] ?? {}),
      'x-pipe-braces': true,
      description: `capsule parameter (${param.type ?? 'any'})`,
    };
  }
  properties['fail-on-error'] = {
    type: 'boolean',
    default: true,
    description: 'Stop the execution when the capsule fails (default true).',
  };
  return {
    name: decl.name,
    kind: 'connector',
    summary: `capsule ${decl.name}(${decl.params.map((p) => `${p.name}${p.type ? `: ${p.type}` : ''}`).join(', ')})`,
    params: { type: 'object', additionalProperties: false, required: decl.params.map((p) => p.name), properties },
    output: null,
    module: `capsule:${decl.name}`,
  };
}

/** The shape a capsule call gives the next step: its contract, or unknown. */
export function capsuleOutputType(decl: CapsuleDecl, facts: ServiceFacts): PipeType {
  if (!decl.output) return UNKNOWN;
  const schema = resolveSchemaValue(decl.output, facts.decls, []);
  return schema === undefined ? UNKNOWN : schemaToType(schema);
}

export function checkCapsules(facts: ServiceFacts): {
  plans: CapsulePlan[];
  diagnostics: Diagnostic[];
  shapes: StepShape[];
} {
  const plans: CapsulePlan[] = [];
  const shapes: StepShape[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const decl of facts.decls.capsules.values()) {
    const scope: Record<string, PipeType> = {};
    for (const param of decl.params) {
      const schema = CAPSULE_PARAM_TYPES[param.type ?? 'any'];
      if (!schema) {
        diagnostics.push(
          unknownCapsuleParamType(
            param.type ?? '',
            decl.name,
            param.typeSpan ?? param.nameSpan,
            Object.keys(CAPSULE_PARAM_TYPES),
          ),
        );
        scope[param.name] = UNKNOWN; // reported once here, not again at every use
        continue;
      }
      scope[param.name] = schemaToType(schema);
    }
    const ctx = new PipelineContext(facts, `capsule ${decl.name}`, decl.nameSpan.file, new Map(), scope);
    const body = checkBlock(decl.steps, UNKNOWN, ctx, { respondForbiddenIn: 'capsule' });
    const contract = decl.output ? compileContract(decl.output, ctx) : undefined;
    diagnostics.push(...ctx.diagnostics);
    shapes.push(...ctx.shapes);
    plans.push({
      name: decl.name,
      source: ctx.source(decl.nameSpan),
      steps: body.plan,
      ...(contract ? { contract } : {}),
      hoisted: ctx.hoisted,
      validators: ctx.validators,
      namespaces: ctx.namespaces,
    });
  }
  return { plans, diagnostics, shapes };
}

function compileContract(output: Value, ctx: PipelineContext): string | undefined {
  const schema = resolveSchemaValue(output, ctx.facts.decls, ctx.diagnostics);
  if (schema === undefined) return undefined;
  return ctx.compileSchema(
    schema,
    output.span,
    undefined,
    `${ctx.pipeline}-contract`,
    schemaLocator(output, ctx.facts.decls),
  );
}
