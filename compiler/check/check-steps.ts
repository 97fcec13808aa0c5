/**
 * Phase `check` for steps: walks a block of steps carrying the message shape from step to step,
 * checks every step (connector parameters, references, expressions, reachability) and builds its
 * plan. Build-time work that depends on the connector is in step-hooks.ts (generic, from the
 * schema's x-pipe-* data) and in the connector's own folder (its compile.ts).
 */
import type { BranchBody, ChoiceStep, ConnectorStep, ForEachStep, Step, Value } from '../ast/ast.js';
import { paramProperties, type ConnectorSchema, type JsonSchema } from '../connectors/connector-registry.js';
import {
  badParallel,
  choiceWithoutOtherwise,
  expressionInHeaderWord,
  labelUsedTwice,
  optedOut,
  respondNotAllowed,
  tooManyHeaderWords,
  unknownBranch,
  unknownConnector,
  unknownForEachOption,
  unreachableBranch,
  unreachableStep,
} from './errors.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import type { ChoicePlan, JsExpr, PlanStep } from '../lower/plan.js';
import { UNKNOWN, type PipeType } from '../types/pipe-type.js';
import type { Span } from '../../base/source/span.js';
import { checkParams } from './check-params.js';
import { checkSecretSink, checkSinkParams } from './secret-sinks.js';
import {
  checkKindRouting,
  checkRetry,
  connectorKinds,
  connectorParams,
  stepsKinds,
  failsWithNamedDetails,
} from './check-policies.js';
import { applyStepHooks, splitHeaderWords } from './step-hooks.js';
import { capsuleOutputType, capsuleSchema } from './check-capsules.js';
import type { PipelineContext } from './context.js';
import { payloadDiagnostics } from './contracts.js';
import { sentPayload } from './senders.js';
import { compileCondition, compileCollection } from '../lower/conditions.js';
import { entryOf } from '../ast/literal.js';
import { respondProblems } from './http-answers.js';
import {
  ERROR_OBJECT,
  ERROR_OBJECT_NAMED_ELSEWHERE,
  FAILURE_FIELDS,
  FAILURE_OUTPUT,
  FOR_EACH_OUTPUT,
  outputShape,
  schemaToType,
} from './shapes.js';
import { compileObject, compileValue, propertyKey, unionOf, type ExpectedOf } from '../lower/values.js';

export interface BlockResult {
  readonly plan: PlanStep[];
  /** Shape of the message after the block (when it does not terminate). */
  readonly message: PipeType;
  /** True when every path through the block ends the execution (respond / fail). */
  readonly terminates: boolean;
}

export interface BlockOptions {
  /** Where `respond` cannot stand (it ends the whole execution): inside a for-each body or a capsule. */
  readonly respondForbiddenIn?: 'for-each' | 'capsule';
}

export function checkBlock(
  steps: readonly Step[],
  message: PipeType,
  ctx: PipelineContext,
  opts: BlockOptions,
): BlockResult {
  const plan: PlanStep[] = [];
  let current = message;
  let terminated = false;
  let reportedUnreachable = false;
  for (const step of steps) {
    if (terminated && !reportedUnreachable) {
      ctx.diagnostics.push(unreachableStep(stepHeadSpan(step)));
      reportedUnreachable = true;
    }
    const result = checkStep(step, current, ctx, opts);
    if (!terminated) plan.push(...result.plan);
    current = result.message;
    terminated ||= result.terminates;
  }
  return { plan, message: current, terminates: terminated };
}

function checkStep(step: Step, message: PipeType, ctx: PipelineContext, opts: BlockOptions): BlockResult {
  ctx.shapes.push({ span: step.span, message });
  switch (step.kind) {
    case 'connector':
      return checkConnectorStep(step, message, ctx, opts);
    case 'respond': {
      if (opts.respondForbiddenIn) {
        const where = opts.respondForbiddenIn;
        ctx.diagnostics.push(
          respondNotAllowed(where, {
            file: step.span.file,
            start: step.span.start,
            end: step.span.start + 'respond'.length,
          }),
        );
      }
      ctx.diagnostics.push(...respondProblems(step));
      const env = ctx.bracesEnv(message);
      const body = step.body ? compileValue(step.body, env, ctx.diagnostics) : { js: 'null', constant: true };
      const headers = step.headers ? compileObject(step.headers, env, ctx.diagnostics) : undefined;
      if (step.body) checkSecretSink(step.body, env, 'the body of `respond`', ctx.diagnostics);
      if (step.headers) checkSecretSink(step.headers, env, 'the headers of `respond`', ctx.diagnostics);
      return {
        plan: [
          {
            kind: 'respond',
            source: ctx.source(step.span),
            status: step.status,
            body,
            ...(headers ? { headers } : {}),
          },
        ],
        message,
        terminates: true,
      };
    }
    case 'fail': {
      const compiled = compileValue(step.message, ctx.bracesEnv(message), ctx.diagnostics);
      checkSecretSink(step.message, ctx.bracesEnv(message), 'the message of `fail`', ctx.diagnostics);
      return {
        plan: [{ kind: 'fail', source: ctx.source(step.span), status: step.status ?? 500, message: compiled }],
        message,
        terminates: true,
      };
    }
    case 'choice':
      return checkChoice(step, message, ctx, opts);
    case 'try': {
      const body = checkBlock(step.body, message, ctx, opts);
      const caught = failsWithNamedDetails(step.body, ctx) ? ERROR_OBJECT_NAMED_ELSEWHERE : ERROR_OBJECT;
      const catchBody = checkBlock(step.catchBody, caught, ctx, opts);
      checkKindRouting(step.catchBody, stepsKinds(step.body, ctx), 'the steps of this `try`', ctx);
      const outputs = [body, catchBody].filter((b) => !b.terminates).map((b) => b.message);
      return {
        plan: [{ kind: 'try', source: ctx.source(step.span), body: body.plan, catchBody: catchBody.plan }],
        message: outputs.length > 0 ? unionOf(outputs) : message,
        terminates: body.terminates && catchBody.terminates,
      };
    }
    case 'for-each':
      return checkForEach(step, message, ctx);
  }
}

function checkConnectorStep(
  written: ConnectorStep,
  message: PipeType,
  ctx: PipelineContext,
  opts: BlockOptions,
): BlockResult {
  // Step options (`retry`) are not the connector's parameters: checked apart, in check-policies.ts.
  const step: ConnectorStep = { ...written, params: connectorParams(written.params) };
  const capsule = ctx.facts.decls.capsules.get(step.connector);
  const schema = ctx.facts.registry.connectors.get(step.connector) ?? (capsule ? capsuleSchema(capsule) : undefined);
  if (!schema) {
    const names = [...ctx.facts.registry.connectors.keys(), ...ctx.facts.decls.capsules.keys()];
    const close = suggest(step.connector, names);
    ctx.diagnostics.push(unknownConnector(step.connector, step.connectorSpan, names, close));
    return { plan: [], message: UNKNOWN, terminates: false };
  }

  // Header words: positional parameters first, then one optional label.
  const positional = schema.positional ?? [];
  const extra: Record<string, unknown> = {};
  const extraSpans: Record<string, Span> = {};
  let label: string | undefined;
  step.args.forEach((arg, i) => {
    const param = positional[i];
    if (arg.kind === 'string' && arg.text.includes('{{')) {
      ctx.diagnostics.push(expressionInHeaderWord(step.connector, arg.text, arg.span, param));
      if (param !== undefined) extra[param] = arg.text; // reported once: not again as a missing parameter
      return;
    }
    if (param !== undefined) {
      extra[param] = arg.text;
      extraSpans[param] = arg.span;
    } else if (i === positional.length && arg.kind === 'word') {
      label = arg.text;
    } else {
      ctx.diagnostics.push(tooManyHeaderWords(step.connector, arg.span, positional));
    }
  });
  if (label !== undefined) {
    const labelArg = step.args[positional.length];
    const previous = ctx.labels.get(label);
    // A branch reached from several `-> name` is checked once per route: the same step is no duplicate.
    if (previous && labelArg && !sameSpan(previous, labelArg.span)) {
      ctx.diagnostics.push(labelUsedTwice(label, ctx.pipeline, labelArg.span, previous));
    } else if (labelArg) {
      ctx.labels.set(label, labelArg.span);
    }
  }

  const writtenSpans = { ...extraSpans };
  splitHeaderWords(schema, extra, extraSpans);
  const checked = checkParams(
    schema,
    step.params,
    extra,
    { what: capsule ? 'capsule' : 'connector', name: step.connector, nameSpan: step.connectorSpan },
    ctx.facts.validators,
    extraSpans,
    wordsAsWritten(step.args, extraSpans, writtenSpans),
  );
  ctx.diagnostics.push(...checked.diagnostics);

  const hook = applyStepHooks({ step, schema, extra, extraSpans, message, ctx, label });
  const expectedOf: ExpectedOf | undefined = capsule ? undefined : (key) => declaredParamType(schema, key);
  const compiled = compileObject(step.params, ctx.bracesEnv(message), ctx.diagnostics, hook.replaced, {}, expectedOf);
  if (!capsule) checkSinkParams(schema, step.params, ctx.bracesEnv(message), ctx.diagnostics);
  const params = mergeParams(compiled, hook.params, ctx, label ?? step.connector);

  const failOnErrorValue = entryOf(step.params, 'fail-on-error');
  const failOnError = failOnErrorValue?.kind === 'boolean' ? failOnErrorValue.value : defaultFailOnError(schema.params);
  warnOptOuts(step, schema.params, ctx);
  const onFail = hook.onFailSteps ? checkBlock(hook.onFailSteps, FAILURE_OUTPUT, ctx, opts) : undefined;
  if (hook.onFailSteps) checkKindRouting(hook.onFailSteps, connectorKinds(schema), `\`${step.connector}\``, ctx);
  const retry = checkRetry(written, schema, extra, ctx);

  // With fail-on-error off the output may also be `{ success: false, … }`; shapes stay optimistic
  // (the success shape) so that paths into it are still checked, and a closed envelope (rest's
  // status, statusMessage, body, headers) also admits the failure's fields, as optional ones.
  const paramTypes =
    compiled.type.kind === 'object'
      ? Object.fromEntries(Object.entries(compiled.type.fields).map(([k, f]) => [k, f.type]))
      : {};
  if (!capsule) {
    ctx.diagnostics.push(...payloadDiagnostics(step, schema, ctx.facts.contracts, paramTypes['payload'], message));
    const sent = sentPayload(step, schema, paramTypes['payload'], message);
    if (sent) {
      // By the step as written: senders.ts finds senders in the declarations.
      const list = ctx.facts.sent.get(written);
      if (list) list.push(sent);
      else ctx.facts.sent.set(written, [sent]);
    }
  }
  const produced = capsule
    ? capsuleOutputType(capsule, ctx.facts)
    : (hook.output ?? outputShape(schema, message, paramTypes));
  const resultType = failOnError ? produced : withFailureFields(produced);
  if (label !== undefined) ctx.stepTypes[label] = resultType;

  return {
    plan: [
      {
        kind: 'connector',
        source: ctx.source(step.span),
        connector: step.connector,
        module: schema.module ?? `connectors/${step.connector}/${step.connector}`,
        ...(label !== undefined ? { label } : {}),
        params,
        failOnError,
        synchronous: !capsule && schema.synchronous === true && retry === undefined,
        ...(schema['x-pipe-span'] ? { span: schema['x-pipe-span'] } : {}),
        ...(schema['x-pipe-metrics'] ? { metrics: schema['x-pipe-metrics'] } : {}),
        ...(onFail ? { onFail: onFail.plan } : {}),
        ...(retry ? { retry } : {}),
      },
    ],
    message: resultType,
    terminates: false,
  };
}

/**
 * The type a parameter declares with a plain `type` (one type or a list), which an expression
 * given for it must fit (`timeout: {{ message.body.t }}` with a string `t` is a build error).
 * Parameters described otherwise (anyOf, oneOf, no type) take any expression.
 */
function declaredParamType(schema: ConnectorSchema, key: string): { type: PipeType; why: string } | undefined {
  const property = Object.hasOwn(paramProperties(schema), key) ? paramProperties(schema)[key] : undefined;
  const type = property ? typeOfProperty(property) : undefined;
  return type && { type, why: `the parameter \`${key}\` of connector \`${schema.name}\`` };
}

/**
 * The type a parameter's schema declares: its `type` (with `enum`, and the `type` of its `items`),
 * or, for an `anyOf` whose every alternative declares one, the union of theirs (email's `to`: an
 * address or a list of them). Undefined when the schema does not say.
 */
function typeOfProperty(property: JsonSchema): PipeType | undefined {
  const type = property['type'];
  if (typeof type === 'string' || Array.isArray(type)) {
    const items = property['items'];
    const itemType =
      type === 'array' && typeof items === 'object' && items !== null && !Array.isArray(items)
        ? (items as JsonSchema)['type']
        : undefined;
    return schemaToType({
      type,
      ...(Array.isArray(property['enum']) ? { enum: property['enum'] } : {}),
      ...(typeof itemType === 'string' ? { items: { type: itemType } } : {}),
    });
  }
  const alternatives = property['anyOf'];
  if (!Array.isArray(alternatives) || alternatives.length === 0) return undefined;
  const types = alternatives.map((a) =>
    typeof a === 'object' && a !== null && !Array.isArray(a) ? typeOfProperty(a as JsonSchema) : undefined,
  );
  return types.every((t): t is PipeType => t !== undefined) ? unionOf(types) : undefined;
}

/** The generic parameters plus the hook's, as one object expression (hoisted when constant). */
function mergeParams(
  compiled: { js: string; constant: boolean },
  extra: Readonly<Record<string, JsExpr>>,
  ctx: PipelineContext,
  hint: string,
): JsExpr {
  // In parameters built per call, large constant parts are built once, at module load.
  const dynamic = !(compiled.constant && Object.values(extra).every((v) => v.constant));
  const extraParts = Object.entries(extra).map(
    ([k, v]) =>
      `${propertyKey(k)}: ${dynamic && v.constant && v.js.length > 40 && /^[[{]/.test(v.js) ? ctx.hoist(`${hint}-${k}`, `Object.freeze(${v.js})`) : v.js}`,
  );
  const inner = compiled.js === '{}' ? [] : [compiled.js.slice(2, -2)];
  const js = `{ ${[...inner, ...extraParts].join(', ')} }`.replace('{  }', '{}');
  const constant = compiled.constant && Object.values(extra).every((v) => v.constant);
  return constant
    ? { js: ctx.hoist(`${hint}-params`, `Object.freeze(${js})`), constant: true }
    : { js, constant: false };
}

function sameSpan(a: Span, b: Span): boolean {
  return a.file === b.file && a.start === b.start && a.end === b.end;
}

/** A closed output shape that may also be the failure object (fail-on-error off): its fields join as optional ones. */
function withFailureFields(t: PipeType): PipeType {
  if (t.kind !== 'object' || t.open) return t;
  const fields = { ...t.fields };
  for (const [key, field] of Object.entries(FAILURE_FIELDS))
    if (!Object.hasOwn(fields, key)) fields[key] = { type: field.type, required: false };
  // `...t` keeps `sentBy`: a message closed by its senders stays so, so a defensive read of a
  // field no sender sends (`message.x.y ?? 0`) stays quiet after a step passes the message on.
  return { ...t, fields };
}

/** A labelled step's output becomes `step.<label>` for later steps; labels are unique per pipeline. */
function registerLabel(label: string, span: Span, output: PipeType, ctx: PipelineContext): void {
  const previous = ctx.labels.get(label);
  if (previous && !sameSpan(previous, span)) {
    ctx.diagnostics.push(labelUsedTwice(label, ctx.pipeline, span, previous));
    return;
  }
  ctx.labels.set(label, span);
  ctx.stepTypes[label] = output;
}

/**
 * PIPE3011 for a boolean parameter marked `x-pipe-opt-out` in the connector's schema (the text says
 * what can be lost) when the step sets it against its default.
 */
function warnOptOuts(step: ConnectorStep, params: Readonly<Record<string, unknown>>, ctx: PipelineContext): void {
  const props = params['properties'] as Record<string, { default?: unknown; 'x-pipe-opt-out'?: unknown }> | undefined;
  if (!props) return;
  for (const [key, prop] of Object.entries(props)) {
    const consequence = prop['x-pipe-opt-out'];
    if (typeof consequence !== 'string' || typeof prop.default !== 'boolean') continue;
    const value = entryOf(step.params, key);
    if (value?.kind !== 'boolean' || value.value === prop.default) continue;
    ctx.diagnostics.push(optedOut(step.connector, key, value.value, consequence, value.span));
  }
}

function defaultFailOnError(params: Readonly<Record<string, unknown>>): boolean {
  const props = params['properties'] as Record<string, { default?: unknown }> | undefined;
  return props?.['fail-on-error']?.default === true;
}

function checkChoice(step: ChoiceStep, message: PipeType, ctx: PipelineContext, opts: BlockOptions): BlockResult {
  const whens: ChoicePlan['whens'][number][] = [];
  const outputs: PipeType[] = [];
  let allTerminate = true;
  let alwaysMatched: Value | undefined;
  for (const when of step.whens) {
    if (alwaysMatched) {
      ctx.diagnostics.push(unreachableBranch(when.condition.span, alwaysMatched.span));
    }
    const condition = compileCondition(when.condition, message, ctx);
    if (condition.alwaysTrue) alwaysMatched ??= when.condition;
    const body = checkBranchBody(when.body, message, ctx, opts);
    if (!body.terminates) outputs.push(body.message);
    allTerminate &&= body.terminates;
    whens.push({
      condition: condition.expr,
      source: ctx.source(when.span),
      describe: condition.describe,
      body: body.plan,
    });
  }
  let otherwise: BlockResult | undefined;
  if (step.otherwise) {
    otherwise = checkBranchBody(step.otherwise, message, ctx, opts);
    if (!otherwise.terminates) outputs.push(otherwise.message);
    allTerminate &&= otherwise.terminates;
  } else {
    ctx.diagnostics.push(
      choiceWithoutOtherwise({ file: step.span.file, start: step.span.start, end: step.span.start + 'choice'.length }),
    );
    outputs.push(message);
    allTerminate = false;
  }
  const plan: ChoicePlan = {
    kind: 'choice',
    source: ctx.source(step.span),
    ...(step.label ? { label: step.label } : {}),
    whens,
    ...(otherwise ? { otherwise: otherwise.plan } : {}),
  };
  return { plan: [plan], message: outputs.length > 0 ? unionOf(outputs) : message, terminates: allTerminate };
}

function checkBranchBody(body: BranchBody, message: PipeType, ctx: PipelineContext, opts: BlockOptions): BlockResult {
  if (body.kind === 'inline') return checkBlock(body.steps, message, ctx, opts);
  const branch = ctx.branches.get(body.name);
  if (!branch) {
    const close = suggest(body.name, [...ctx.branches.keys()]);
    ctx.diagnostics.push(unknownBranch(ctx.pipeline, body.name, body.span, close));
    return { plan: [], message, terminates: false };
  }
  ctx.usedBranches.add(body.name);
  return checkBlock(branch.steps, message, ctx, opts);
}

function checkForEach(step: ForEachStep, message: PipeType, ctx: PipelineContext): BlockResult {
  const collection = compileCollection(step.over, message, ctx);
  const parallelValue = entryOf(step.options, 'parallel');
  const failValue = entryOf(step.options, 'fail-on-error');
  for (const entry of step.options?.entries ?? []) {
    if (entry.key !== 'parallel' && entry.key !== 'fail-on-error') {
      const close = suggest(entry.key, ['parallel', 'fail-on-error']);
      ctx.diagnostics.push(unknownForEachOption(entry.key, entry.keySpan, close));
    }
  }
  let parallel = 1;
  if (parallelValue) {
    if (
      parallelValue.kind === 'number' &&
      Number.isInteger(parallelValue.value) &&
      parallelValue.value >= 1 &&
      parallelValue.value <= 10
    ) {
      parallel = parallelValue.value;
    } else {
      ctx.diagnostics.push(badParallel(parallelValue.span));
    }
  }
  const body = checkBlock(step.body, collection.element, ctx, { respondForbiddenIn: 'for-each' });
  if (step.label !== undefined) registerLabel(step.label, step.labelSpan ?? step.span, FOR_EACH_OUTPUT, ctx);
  return {
    plan: [
      {
        kind: 'for-each',
        source: ctx.source(step.span),
        ...(step.label ? { label: step.label } : {}),
        over: collection.expr,
        parallel,
        failOnError: failValue?.kind === 'boolean' ? failValue.value : false,
        body: body.plan,
      },
    ],
    message: FOR_EACH_OUTPUT,
    terminates: false,
  };
}

function stepHeadSpan(step: Step) {
  switch (step.kind) {
    case 'connector':
      return step.connectorSpan;
    case 'respond':
      return { file: step.span.file, start: step.span.start, end: step.span.start + 'respond'.length };
    case 'fail':
      return { file: step.span.file, start: step.span.start, end: step.span.start + 'fail'.length };
    case 'choice':
      return { file: step.span.file, start: step.span.start, end: step.span.start + 'choice'.length };
    case 'try':
      return { file: step.span.file, start: step.span.start, end: step.span.start + 'try'.length };
    case 'for-each':
      return { file: step.span.file, start: step.span.start, end: step.span.start + 'for-each'.length };
  }
}

/**
 * Each header-word parameter → the word it was written in (`operation` → `generate` of `csv
 * generate`, `orders.find` of `store orders.find`, which `x-pipe-split` made two parameters), so
 * messages name the step as written.
 */
function wordsAsWritten(
  args: readonly { readonly text: string; readonly span: Span }[],
  spans: Readonly<Record<string, Span>>,
  writtenSpans: Readonly<Record<string, Span>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [param, at] of Object.entries(spans)) {
    const word = args.find((arg) => arg.span.start <= at.start && at.end <= arg.span.end);
    if (word && Object.values(writtenSpans).some((s) => sameSpan(s, word.span))) out[param] = word.text;
  }
  return out;
}
