/**
 * CST → AST for steps: blocks of steps, connector steps (header words and parameters), respond,
 * fail, choice (with its conditions and branch bodies), try/catch and for-each. Reports a bad
 * HTTP status (PIPE1021), a step without its `{ … }` (PIPE1019) and `try` without `catch` (PIPE1027).
 */
import type { IToken } from 'chevrotain';
import type {
  BranchBody,
  ChoiceStep,
  ConnectorStep,
  FailStep,
  ForEachStep,
  HeaderArg,
  RespondStep,
  Step,
  TryStep,
  Value,
  WhenClause,
} from '../ast.js';
import { joinSpans, span, type Span } from '../../../base/source/span.js';
import type {
  BranchBodyCstNode,
  ChoiceStepCstNode,
  ConditionCstNode,
  ConnectorStepCstNode,
  FailStepCstNode,
  ForEachStepCstNode,
  RespondStepCstNode,
  StepCstNode,
  StepsBlockCstNode,
  TryStepCstNode,
} from '../../../grammar/generated/cst.js';
import * as T from '../../../grammar/tokens.js';
import { badStatus, tryWithoutCatch } from '../errors.js';
import { bracesFromToken, decodeNumber } from '../token-values.js';
import { first, inSourceOrder, token, tokens, type AstContext } from './access.js';
import { missingBlock, object, stringText, stringToken, value } from './values.js';

export function stepsBlock(ctx: AstContext, node: StepsBlockCstNode | undefined): Step[] {
  const steps: Step[] = [];
  for (const stepNode of node?.children.step ?? []) {
    const built = step(ctx, stepNode);
    if (built) steps.push(built);
  }
  return steps;
}

type StepNode =
  RespondStepCstNode | FailStepCstNode | ChoiceStepCstNode | TryStepCstNode | ForEachStepCstNode | ConnectorStepCstNode;

export function step(ctx: AstContext, node: StepCstNode | undefined): Step | undefined {
  if (!node) return undefined;
  const c = node.children;
  const inner = inSourceOrder<StepNode>(
    c.respondStep,
    c.failStep,
    c.choiceStep,
    c.tryStep,
    c.forEachStep,
    c.connectorStep,
  )[0];
  const whole = inner && ctx.nodeSpan(inner);
  if (!inner || !whole) return undefined;
  switch (inner.name) {
    case 'respondStep':
      return respond(ctx, inner, whole);
    case 'failStep':
      return fail(ctx, inner, whole);
    case 'choiceStep':
      return choice(ctx, inner, whole);
    case 'tryStep':
      return tryStep(ctx, inner, whole);
    case 'forEachStep':
      return forEach(ctx, inner, whole);
    case 'connectorStep':
      return connector(ctx, inner, whole);
  }
}

function connector(ctx: AstContext, node: ConnectorStepCstNode, whole: Span): ConnectorStep | undefined {
  const nameToken = token(node.children.connector);
  if (!nameToken) return undefined;
  const args: HeaderArg[] = tokens(node.children.arg).map((arg) =>
    arg.tokenType === T.StringLiteral || arg.tokenType === T.TripleString
      ? { kind: 'string', text: stringText(ctx, arg), span: ctx.tokenSpan(arg) }
      : { kind: 'word', text: arg.image, span: ctx.tokenSpan(arg) },
  );
  const connectorSpan = ctx.tokenSpan(nameToken);
  const lastHeader = args[args.length - 1]?.span ?? connectorSpan;
  const params =
    object(ctx, first(node.children.object)) ??
    missingBlock(
      ctx,
      'step',
      [nameToken.image, ...args.map((a) => a.text)].join(' '),
      joinSpans(connectorSpan, lastHeader),
    );
  return { kind: 'connector', connector: nameToken.image, connectorSpan, args, params, span: whole };
}

/** An HTTP status: an integer literal from 100 to 599, or undefined after reporting. */
function status(ctx: AstContext, written: IToken): number | undefined {
  const decoded = decodeNumber(ctx.path, written.image, written.startOffset);
  const number = decoded.value;
  if (
    number.kind === 'number' &&
    Number.isInteger(number.value) &&
    number.value >= 100 &&
    number.value <= 599 &&
    decoded.diagnostics.length === 0
  ) {
    return number.value;
  }
  ctx.report(badStatus(ctx.tokenSpan(written), written.image));
  return undefined;
}

function respond(ctx: AstContext, node: RespondStepCstNode, whole: Span): RespondStep | undefined {
  const statusToken = token(node.children.status);
  if (!statusToken) return undefined;
  const code = status(ctx, statusToken) ?? 500;
  const body = value(ctx, first(node.children.value));
  const headers = object(ctx, first(node.children.object));
  return {
    kind: 'respond',
    status: code,
    statusSpan: ctx.tokenSpan(statusToken),
    ...(body ? { body } : {}),
    ...(headers ? { headers } : {}),
    span: whole,
  };
}

function fail(ctx: AstContext, node: FailStepCstNode, whole: Span): FailStep | undefined {
  const message = value(ctx, first(node.children.value));
  if (!message) return undefined;
  const statusToken = token(node.children.status);
  const code = statusToken ? status(ctx, statusToken) : undefined;
  return {
    kind: 'fail',
    ...(statusToken && code !== undefined ? { status: code, statusSpan: ctx.tokenSpan(statusToken) } : {}),
    message,
    span: whole,
  };
}

function choice(ctx: AstContext, node: ChoiceStepCstNode, whole: Span): ChoiceStep {
  const label = token(node.children.label);
  const whens: WhenClause[] = [];
  for (const clause of node.children.whenClause ?? []) {
    const condition = conditionOf(ctx, first(clause.children.condition));
    const body = branchBody(ctx, first(clause.children.branchBody));
    const clauseSpan = ctx.nodeSpan(clause);
    if (condition && body && clauseSpan) whens.push({ condition, body, span: clauseSpan });
  }
  const otherwiseNode = first(node.children.otherwiseClause);
  const otherwise = branchBody(ctx, first(otherwiseNode?.children.branchBody));
  const otherwiseSpan = otherwiseNode && ctx.nodeSpan(otherwiseNode);
  return {
    kind: 'choice',
    ...(label ? { label: label.image, labelSpan: ctx.tokenSpan(label) } : {}),
    whens,
    ...(otherwise && otherwiseSpan ? { otherwise, otherwiseSpan } : {}),
    span: whole,
  };
}

/** A `when` condition or a for-each's `over`: a JSONPath string or `{{ … }}`. */
function conditionOf(ctx: AstContext, node: ConditionCstNode | undefined): Value | undefined {
  const braces = token(node?.children.Braces);
  if (braces) return bracesFromToken(ctx.path, braces.image, braces.startOffset);
  const text = token(node?.children.StringLiteral) ?? token(node?.children.TripleString);
  return text ? stringToken(ctx, text) : undefined;
}

function branchBody(ctx: AstContext, node: BranchBodyCstNode | undefined): BranchBody | undefined {
  const block = first(node?.children.stepsBlock);
  if (block) {
    const blockSpan = ctx.nodeSpan(block);
    return blockSpan ? { kind: 'inline', steps: stepsBlock(ctx, block), span: blockSpan } : undefined;
  }
  const target = token(node?.children.target);
  return target ? { kind: 'ref', name: target.image, span: ctx.tokenSpan(target) } : undefined;
}

function tryStep(ctx: AstContext, node: TryStepCstNode, whole: Span): TryStep {
  const catchToken = token(node.children.Catch);
  const catchBlock = first(node.children.catchBody);
  const catchBlockSpan = catchBlock && ctx.nodeSpan(catchBlock);
  if (!catchToken) {
    const tryToken = token(node.children.Try);
    ctx.report(tryWithoutCatch(tryToken ? ctx.tokenSpan(tryToken) : whole));
  }
  const catchSpan = catchToken
    ? catchBlockSpan
      ? joinSpans(ctx.tokenSpan(catchToken), catchBlockSpan)
      : ctx.tokenSpan(catchToken)
    : span(ctx.path, whole.end, whole.end);
  return {
    kind: 'try',
    body: stepsBlock(ctx, first(node.children.body)),
    catchBody: stepsBlock(ctx, catchBlock),
    catchSpan,
    span: whole,
  };
}

function forEach(ctx: AstContext, node: ForEachStepCstNode, whole: Span): ForEachStep | undefined {
  const over = conditionOf(ctx, first(node.children.over));
  if (!over) return undefined;
  const label = token(node.children.label);
  const options = object(ctx, first(node.children.parenEntries));
  return {
    kind: 'for-each',
    ...(label ? { label: label.image, labelSpan: ctx.tokenSpan(label) } : {}),
    over,
    ...(options ? { options } : {}),
    body: stepsBlock(ctx, first(node.children.stepsBlock)),
    span: whole,
  };
}
