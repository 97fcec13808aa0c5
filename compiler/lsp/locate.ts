/**
 * What is at an offset of a .pipe file: walks the (possibly partial) AST and returns the innermost
 * thing an editor feature cares about — a connector or trigger name, a parameter key, a header
 * argument, a value (ident, string, `{{ }}`), a pipeline name — with the step or trigger it sits in.
 * Pure; offsets are host-file UTF-16 offsets and a position at the very end of a name still hits it.
 */
import type {
  BracesValue,
  ConnectorStep,
  Decl,
  HeaderArg,
  ObjectValue,
  PipeFile,
  PipelineDecl,
  Step,
  TriggerDecl,
  Value,
} from '../ast/ast.js';
import type { Span } from '../../base/source/span.js';

/** The connector step or trigger whose parameter block holds the hit. */
export type Owner =
  | { readonly kind: 'connector'; readonly step: ConnectorStep }
  | { readonly kind: 'trigger'; readonly trigger: TriggerDecl };

export type Hit =
  | { readonly kind: 'connector-name'; readonly step: ConnectorStep; readonly span: Span }
  | { readonly kind: 'trigger-kind'; readonly trigger: TriggerDecl; readonly span: Span }
  | { readonly kind: 'param-key'; readonly owner: Owner; readonly key: string; readonly span: Span }
  | {
      readonly kind: 'header-arg';
      readonly step: ConnectorStep;
      readonly arg: HeaderArg;
      readonly index: number;
      readonly span: Span;
    }
  /** A value; `param` names the top-level parameter it belongs to, when there is one. */
  | {
      readonly kind: 'value';
      readonly owner?: Owner;
      readonly param?: string;
      readonly value: Value;
      readonly span: Span;
    }
  | { readonly kind: 'braces'; readonly braces: BracesValue; readonly span: Span }
  | { readonly kind: 'branch-ref'; readonly name: string; readonly span: Span }
  | { readonly kind: 'decl-name'; readonly decl: Decl; readonly span: Span }
  | { readonly kind: 'step'; readonly step: Step; readonly span: Span };

const within = (span: Span | undefined, offset: number): span is Span =>
  span !== undefined && offset >= span.start && offset <= span.end;

export function locate(file: PipeFile, offset: number): Hit | undefined {
  for (const decl of file.decls) {
    if (!within(decl.span, offset)) continue;
    if ('nameSpan' in decl && within(decl.nameSpan, offset)) return { kind: 'decl-name', decl, span: decl.nameSpan };
    switch (decl.kind) {
      case 'pipeline':
        return locatePipeline(decl, offset);
      case 'capsule':
        return locateSteps(decl.steps, offset);
      case 'schema':
      case 'global':
        return locateValue(decl.value, offset, undefined, undefined);
      case 'account':
        return locateValue(decl.config, offset, undefined, undefined);
      case 'store':
        return decl.options ? locateValue(decl.options, offset, undefined, undefined) : undefined;
      case 'import':
        return undefined;
    }
  }
  return undefined;
}

function locatePipeline(decl: PipelineDecl, offset: number): Hit | undefined {
  const trigger = decl.trigger;
  if (trigger && within(trigger.span, offset)) {
    if (within(trigger.kindSpan, offset)) return { kind: 'trigger-kind', trigger, span: trigger.kindSpan };
    return locateParams(trigger.config, offset, { kind: 'trigger', trigger });
  }
  if (decl.options && within(decl.options.span, offset)) return locateValue(decl.options, offset, undefined, undefined);
  for (const branch of decl.branches) if (within(branch.span, offset)) return locateSteps(branch.steps, offset);
  return locateSteps(decl.steps, offset) ?? (decl.onError ? locateSteps(decl.onError, offset) : undefined);
}

function locateSteps(steps: readonly Step[], offset: number): Hit | undefined {
  for (const step of steps) if (within(step.span, offset)) return locateStep(step, offset);
  return undefined;
}

function locateStep(step: Step, offset: number): Hit | undefined {
  switch (step.kind) {
    case 'connector': {
      if (within(step.connectorSpan, offset)) return { kind: 'connector-name', step, span: step.connectorSpan };
      const index = step.args.findIndex((a) => within(a.span, offset));
      const arg = step.args[index];
      if (arg) return { kind: 'header-arg', step, arg, index, span: arg.span };
      return locateParams(step.params, offset, { kind: 'connector', step }) ?? { kind: 'step', step, span: step.span };
    }
    case 'respond':
      return (
        (step.body && locateValue(step.body, offset, undefined, undefined)) ??
        (step.headers && locateValue(step.headers, offset, undefined, undefined)) ?? {
          kind: 'step',
          step,
          span: step.span,
        }
      );
    case 'fail':
      return locateValue(step.message, offset, undefined, undefined) ?? { kind: 'step', step, span: step.span };
    case 'choice':
      for (const when of step.whens) {
        if (!within(when.span, offset)) continue;
        const inCondition = locateValue(when.condition, offset, undefined, undefined);
        if (inCondition) return inCondition;
        if (when.body.kind === 'ref')
          return within(when.body.span, offset)
            ? { kind: 'branch-ref', name: when.body.name, span: when.body.span }
            : undefined;
        return locateSteps(when.body.steps, offset);
      }
      if (step.otherwise?.kind === 'ref' && within(step.otherwise.span, offset))
        return { kind: 'branch-ref', name: step.otherwise.name, span: step.otherwise.span };
      if (step.otherwise?.kind === 'inline')
        return locateSteps(step.otherwise.steps, offset) ?? { kind: 'step', step, span: step.span };
      return { kind: 'step', step, span: step.span };
    case 'try':
      return (
        locateSteps(step.body, offset) ?? locateSteps(step.catchBody, offset) ?? { kind: 'step', step, span: step.span }
      );
    case 'for-each':
      return (
        locateValue(step.over, offset, undefined, undefined) ??
        locateSteps(step.body, offset) ?? { kind: 'step', step, span: step.span }
      );
  }
}

function locateParams(params: ObjectValue, offset: number, owner: Owner): Hit | undefined {
  for (const entry of params.entries) {
    if (!within(entry.span, offset)) continue;
    if (within(entry.keySpan, offset)) return { kind: 'param-key', owner, key: entry.key, span: entry.keySpan };
    if (entry.kind === 'steps-entry') return locateSteps(entry.steps, offset);
    return locateValue(entry.value, offset, owner, entry.key);
  }
  return undefined;
}

function locateValue(
  value: Value,
  offset: number,
  owner: Owner | undefined,
  param: string | undefined,
): Hit | undefined {
  if (!within(value.span, offset)) return undefined;
  const base = { ...(owner ? { owner } : {}), ...(param !== undefined ? { param } : {}) };
  switch (value.kind) {
    case 'object':
      for (const entry of value.entries) {
        if (!within(entry.span, offset)) continue;
        if (entry.kind === 'steps-entry') return locateSteps(entry.steps, offset);
        return locateValue(entry.value, offset, owner, param);
      }
      return undefined;
    case 'array':
      for (const item of value.items) {
        const hit = locateValue(item, offset, owner, param);
        if (hit) return hit;
      }
      return undefined;
    case 'tagged':
      return locateValue(value.value, offset, owner, param);
    case 'braces':
      return { kind: 'braces', braces: value, span: value.span };
    case 'template':
      for (const part of value.parts)
        if (part.kind === 'braces' && within(part.span, offset))
          return { kind: 'braces', braces: part, span: part.span };
      return { kind: 'value', ...base, value, span: value.span };
    default:
      return { kind: 'value', ...base, value, span: value.span };
  }
}
