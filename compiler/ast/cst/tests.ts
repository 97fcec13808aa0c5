/**
 * CST → AST for `test` blocks (`pipec test`): the settings `pipeline` and `input` (with
 * `file("…")`), `mock` lines and `expect` lines (their meaning read by ./expectations.ts).
 * Reports PIPE7001–PIPE7005.
 */
import type { MockDecl, Expectation, TestDecl, TestInput } from '../ast.js';
import { suggest } from '../../../base/diagnostics/suggest.js';
import { joinSpans, type Span } from '../../../base/source/span.js';
import type {
  EntryCstNode,
  ExpectDeclCstNode,
  ExpectPartCstNode,
  FileCstNode,
  MockDeclCstNode,
  TestDeclCstNode,
} from '../../../grammar/generated/cst.js';
import * as T from '../../../grammar/tokens.js';
import {
  badExpectation,
  badFileInput,
  badMock,
  testPipelineNotAName,
  testSettingTwice,
  unknownTestSetting,
  type MockProblem,
} from '../errors.js';
import { bracesFromToken } from '../token-values.js';
import { first, token, tokens, type AstContext } from './access.js';
import { EXPECTATION_FORMS, readExpectation, type ExpectPart } from './expectations.js';
import { array, entry, numberToken, object, stringText, stringToken, value } from './values.js';

export function tests(ctx: AstContext, cst: FileCstNode): TestDecl[] {
  const built: TestDecl[] = [];
  for (const node of cst.children.testDecl ?? []) {
    const one = test(ctx, node);
    if (one) built.push(one);
  }
  return built;
}

function test(ctx: AstContext, node: TestDeclCstNode): TestDecl | undefined {
  const nameToken = token(node.children.name);
  const whole = ctx.nodeSpan(node);
  if (!nameToken || !whole) return undefined;
  let pipeline: TestDecl['pipeline'];
  let input: TestInput | undefined;
  const mocks: MockDecl[] = [];
  const expects: Expectation[] = [];
  const settingSpans = new Map<string, Span>();
  for (const item of node.children.testItem ?? []) {
    const mockNode = first(item.children.mockDecl);
    if (mockNode) {
      const built = mock(ctx, mockNode);
      if (built) mocks.push(built);
      continue;
    }
    const expectNode = first(item.children.expectDecl);
    if (expectNode) {
      const built = expectation(ctx, expectNode);
      if (built) expects.push(built);
      continue;
    }
    const entryNode = first(item.children.entry);
    const keyToken = token(entryNode?.children.key);
    if (!entryNode || !keyToken) continue;
    const key = keyToken.image;
    const keySpan = ctx.tokenSpan(keyToken);
    if (key !== 'pipeline' && key !== 'input') {
      ctx.report(unknownTestSetting(key, keySpan, suggest(key, ['pipeline', 'input'])));
      continue;
    }
    const earlier = settingSpans.get(key);
    if (earlier) {
      ctx.report(testSettingTwice(key, keySpan, earlier));
      continue;
    }
    settingSpans.set(key, keySpan);
    if (key === 'input') input = testInput(ctx, entryNode) ?? input;
    else pipeline = testPipeline(ctx, entryNode) ?? pipeline;
  }
  return {
    kind: 'test',
    name: stringText(ctx, nameToken),
    nameSpan: ctx.tokenSpan(nameToken),
    ...(pipeline ? { pipeline } : {}),
    ...(input ? { input } : {}),
    mocks,
    expects,
    span: whole,
  };
}

function testPipeline(ctx: AstContext, node: EntryCstNode): TestDecl['pipeline'] | undefined {
  const built = entry(ctx, node);
  if (!built || built.kind !== 'entry') return undefined;
  if (built.value.kind !== 'ident' && built.value.kind !== 'string') {
    ctx.report(testPipelineNotAName(built.value.span));
    return undefined;
  }
  return { name: built.value.kind === 'ident' ? built.value.name : built.value.value, span: built.value.span };
}

/** `input: VALUE` or `input: file("path.json")` (the only place `file(…)` is allowed). */
function testInput(ctx: AstContext, node: EntryCstNode): TestInput | undefined {
  const call = first(first(node.children.value)?.children.call);
  const callee = token(call?.children.callee);
  if (call && callee?.image === 'file') {
    const callSpan = ctx.nodeSpan(call);
    const args = (call.children.arg ?? []).map((arg) => value(ctx, arg));
    const [pathValue] = args;
    if (!callSpan) return undefined;
    if (args.length !== 1 || pathValue?.kind !== 'string') {
      ctx.report(badFileInput(callSpan));
      return undefined;
    }
    return { kind: 'file', path: pathValue.value, pathSpan: pathValue.span, span: callSpan };
  }
  const built = entry(ctx, node);
  if (!built || built.kind !== 'entry') return undefined;
  return { kind: 'value', value: built.value, span: built.value.span };
}

function mock(ctx: AstContext, node: MockDeclCstNode): MockDecl | undefined {
  const connectorToken = token(node.children.connector);
  const whole = ctx.nodeSpan(node);
  if (!connectorToken || !whole) return undefined;
  const [labelToken, modeToken, ...extra] = tokens(node.children.arg);
  const body = object(ctx, first(node.children.object));
  const connectorSpan = ctx.tokenSpan(connectorToken);
  const bad = (problem: MockProblem, at: Span): undefined => {
    ctx.report(badMock(problem, at, connectorToken.image, labelToken?.image));
    return undefined;
  };
  // The step: a label or a first header word (`reprocess.find`), never a string.
  if (!labelToken || labelToken.tokenType === T.StringLiteral || labelToken.tokenType === T.TripleString) {
    return bad({ kind: 'no-label' }, labelToken ? ctx.tokenSpan(labelToken) : connectorSpan);
  }
  if (modeToken && modeToken.image !== 'fails') {
    return bad(
      { kind: 'unexpected', word: modeToken.image, expected: 'expected `fails` or `{`' },
      ctx.tokenSpan(modeToken),
    );
  }
  const firstExtra = extra[0];
  if (firstExtra)
    return bad({ kind: 'unexpected', word: firstExtra.image, expected: 'expected `{`' }, ctx.tokenSpan(firstExtra));
  if (!body)
    return bad(
      { kind: 'no-block', label: labelToken.image },
      joinSpans(connectorSpan, ctx.tokenSpan(modeToken ?? labelToken)),
    );
  return {
    connector: connectorToken.image,
    connectorSpan,
    label: labelToken.image,
    labelSpan: ctx.tokenSpan(labelToken),
    fails: modeToken !== undefined,
    body,
    span: whole,
  };
}

function expectation(ctx: AstContext, node: ExpectDeclCstNode): Expectation | undefined {
  const whatToken = token(node.children.what);
  const whole = ctx.nodeSpan(node);
  if (!whatToken || !whole) return undefined;
  const parts = (node.children.expectPart ?? [])
    .map((p) => expectPart(ctx, p))
    .filter((p): p is ExpectPart => p !== undefined);
  const what = whatToken.image;
  const built = readExpectation(what, parts, whole);
  if (built.ok) return built.value;
  const known = Object.keys(EXPECTATION_FORMS);
  const form = EXPECTATION_FORMS[what];
  ctx.report(
    badExpectation({
      what,
      at: form ? (built.at ?? whole) : ctx.tokenSpan(whatToken),
      form,
      problem: built.problem,
      known,
      suggestion: form ? undefined : suggest(what, known),
    }),
  );
  return undefined;
}

function expectPart(ctx: AstContext, node: ExpectPartCstNode): ExpectPart | undefined {
  const whole = ctx.nodeSpan(node);
  if (!whole) return undefined;
  const c = node.children;
  const word = token(c.word);
  if (word) {
    if (word.tokenType === T.True || word.tokenType === T.False) {
      return { kind: 'value', value: { kind: 'boolean', value: word.tokenType === T.True, span: whole }, span: whole };
    }
    if (word.tokenType === T.Null) return { kind: 'value', value: { kind: 'null', span: whole }, span: whole };
    return { kind: 'word', text: word.image, span: whole };
  }
  const number = token(c.number);
  if (number) return { kind: 'value', value: numberToken(ctx, number), span: whole };
  const text = token(c.text);
  if (text) return { kind: 'value', value: stringToken(ctx, text), span: whole };
  const braces = token(c.braces);
  if (braces) return { kind: 'value', value: bracesFromToken(ctx.path, braces.image, braces.startOffset), span: whole };
  const arrayNode = first(c.array);
  const built = object(ctx, first(c.object)) ?? (arrayNode ? array(ctx, arrayNode) : undefined);
  return built ? { kind: 'value', value: built, span: whole } : undefined;
}
