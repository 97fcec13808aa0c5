/**
 * CST → AST for values: literals (decoded by ../token-values.ts), objects and their entries (with
 * PIPE1013/1014 for a missing colon or value and PIPE1026 for a duplicate key), arrays, `env(…)`
 * and tagged values.
 */
import type { IToken } from 'chevrotain';
import type { ArrayValue, EnvValue, ObjectEntry, ObjectValue, StepsEntry, TaggedValue, Value } from '../ast.js';
import { span, type Span } from '../../../base/source/span.js';
import type {
  ArrayCstNode,
  CallCstNode,
  EntryCstNode,
  ObjectCstNode,
  ParenEntriesCstNode,
  TaggedCstNode,
  ValueCstNode,
} from '../../../grammar/generated/cst.js';
import * as T from '../../../grammar/tokens.js';
import {
  badEnvArguments,
  duplicateKey,
  missingBlock as missingBlockError,
  missingColon,
  missingValue,
  unknownValueFunction,
} from '../errors.js';
import { bracesFromToken, decodeNumber, decodeQuotedString, decodeTripleString } from '../token-values.js';
import { first, token, type AstContext } from './access.js';
import { stepsBlock } from './steps.js';

/** A quoted or triple-quoted string token as a value (its escapes and `{{ }}` decoded). */
export function stringToken(ctx: AstContext, text: IToken): Value {
  const decoded =
    text.tokenType === T.TripleString
      ? decodeTripleString(ctx.path, text.image, text.startOffset)
      : decodeQuotedString(ctx.path, text.image, text.startOffset);
  ctx.diagnostics.push(...decoded.diagnostics);
  return decoded.value;
}

/** The text of a string used as a path, key or header arg (expressions kept as written). */
export function stringText(ctx: AstContext, text: IToken): string {
  const value = stringToken(ctx, text);
  if (value.kind === 'string') return value.value;
  if (value.kind !== 'template') return text.image;
  return value.parts.map((part) => (part.kind === 'text' ? part.value : `{{${part.text}}}`)).join('');
}

/** A number literal token as a number, duration or size value. */
export function numberToken(ctx: AstContext, number: IToken): Value {
  const decoded = decodeNumber(ctx.path, number.image, number.startOffset);
  ctx.diagnostics.push(...decoded.diagnostics);
  return decoded.value;
}

export function value(ctx: AstContext, node: ValueCstNode | undefined): Value | undefined {
  if (!node) return undefined;
  const c = node.children;
  const objectNode = first(c.object);
  if (objectNode) return object(ctx, objectNode);
  const arrayNode = first(c.array);
  if (arrayNode) return array(ctx, arrayNode);
  const callNode = first(c.call);
  if (callNode) return call(ctx, callNode);
  const taggedNode = first(c.tagged);
  if (taggedNode) return tagged(ctx, taggedNode);
  const text = token(c.StringLiteral) ?? token(c.TripleString);
  if (text) return stringToken(ctx, text);
  const number = token(c.NumberLiteral);
  if (number) return numberToken(ctx, number);
  const braces = token(c.Braces);
  if (braces) return bracesFromToken(ctx.path, braces.image, braces.startOffset);
  const whole = ctx.nodeSpan(node);
  if (whole && token(c.True)) return { kind: 'boolean', value: true, span: whole };
  if (whole && token(c.False)) return { kind: 'boolean', value: false, span: whole };
  if (whole && token(c.Null)) return { kind: 'null', span: whole };
  const ident = token(c.ident);
  if (ident) return { kind: 'ident', name: ident.image, span: ctx.tokenSpan(ident) };
  return undefined;
}

export function array(ctx: AstContext, node: ArrayCstNode): ArrayValue | undefined {
  const whole = ctx.nodeSpan(node);
  if (!whole) return undefined;
  const items: Value[] = [];
  for (const item of node.children.value ?? []) {
    const built = value(ctx, item);
    if (built) items.push(built);
  }
  return { kind: 'array', items, span: whole };
}

/** `env("NAME")` or `env("NAME", "default")`: the one function a value may call. */
function call(ctx: AstContext, node: CallCstNode): EnvValue | undefined {
  const callee = token(node.children.callee);
  const whole = ctx.nodeSpan(node);
  if (!callee || !whole) return undefined;
  if (callee.image !== 'env') {
    ctx.report(unknownValueFunction(ctx.tokenSpan(callee), callee.image));
    return undefined;
  }
  const args = (node.children.arg ?? []).map((arg) => value(ctx, arg));
  const [name, fallback] = args;
  const plain = (v: Value | undefined): v is Extract<Value, { kind: 'string' }> => v?.kind === 'string';
  if (args.length < 1 || args.length > 2 || !plain(name) || (args.length === 2 && !plain(fallback))) {
    ctx.report(badEnvArguments(whole));
    return undefined;
  }
  return {
    kind: 'env',
    name: name.value,
    nameSpan: name.span,
    ...(plain(fallback) ? { fallback: fallback.value } : {}),
    span: whole,
  };
}

function tagged(ctx: AstContext, node: TaggedCstNode): TaggedValue | undefined {
  const tag = token(node.children.tag);
  const built = object(ctx, first(node.children.object));
  const whole = ctx.nodeSpan(node);
  if (!tag || !built || !whole) return undefined;
  return { kind: 'tagged', tag: tag.image, tagSpan: ctx.tokenSpan(tag), value: built, span: whole };
}

/** `{ … }`, or the `( … )` options of a pipeline or for-each (same entries). */
export function object(
  ctx: AstContext,
  node: ObjectCstNode | ParenEntriesCstNode | undefined,
): ObjectValue | undefined {
  if (!node) return undefined;
  const whole = ctx.nodeSpan(node);
  if (!whole) return undefined;
  return { kind: 'object', entries: entries(ctx, node.children.entry ?? []), span: whole };
}

function entries(ctx: AstContext, nodes: readonly EntryCstNode[]): (ObjectEntry | StepsEntry)[] {
  const built: (ObjectEntry | StepsEntry)[] = [];
  const firstKeySpan = new Map<string, Span>();
  for (const node of nodes) {
    const one = entry(ctx, node);
    if (!one) continue;
    const earlier = firstKeySpan.get(one.key);
    if (earlier) ctx.report(duplicateKey(one.key, one.keySpan, earlier));
    else firstKeySpan.set(one.key, one.keySpan);
    built.push(one);
  }
  return built;
}

/** `key: value`, `key { steps }`, or a key missing its colon or value (reported). */
export function entry(ctx: AstContext, node: EntryCstNode): ObjectEntry | StepsEntry | undefined {
  const c = node.children;
  const keyToken = token(c.key);
  const whole = ctx.nodeSpan(node);
  if (!keyToken || !whole) return undefined;
  const key = keyToken.tokenType === T.StringLiteral ? stringText(ctx, keyToken) : keyToken.image;
  const keySpan = ctx.tokenSpan(keyToken);
  const block = first(c.stepsBlock);
  if (block) return { kind: 'steps-entry', key, keySpan, steps: stepsBlock(ctx, block), span: whole };
  const withoutColon = first(c.valueWithoutColon);
  if (withoutColon) {
    ctx.report(missingColon(key, keyToken.image, keySpan));
    const built = value(ctx, withoutColon);
    return built ? { kind: 'entry', key, keySpan, value: built, span: whole } : undefined;
  }
  const valueNode = first(c.value);
  const built = value(ctx, valueNode);
  if (built) return { kind: 'entry', key, keySpan, value: built, span: whole };
  if (valueNode) return undefined; // a value that was written but rejected (already reported)
  const colon = token(c.Colon);
  if (node.recoveredNode !== true) {
    ctx.report(missingValue(key, keyToken.image, colon ? ctx.tokenSpan(colon) : keySpan, colon !== undefined));
  }
  return undefined;
}

/** Reports a step or trigger written without its `{ … }` and stands in an empty block. */
export function missingBlock(ctx: AstContext, what: 'trigger' | 'step', name: string, at: Span): ObjectValue {
  ctx.report(missingBlockError(what, name, at));
  return { kind: 'object', entries: [], span: span(ctx.path, at.end, at.end) };
}
