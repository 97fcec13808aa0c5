/**
 * CST → AST for the declarations of a file: imports, schemas, accounts, globals, stores,
 * pipelines (trigger, steps, on-error, branches) and capsules. Reports what the lenient grammar
 * lets through: a name with `$` (PIPE1025), a pipeline's trigger missing, twice or after its
 * steps (PIPE1016–1018), a second `on-error` (PIPE1024), a trigger without `{ … }` (PIPE1019).
 */
import type { IToken } from 'chevrotain';
import type { BranchDecl, CapsuleDecl, CapsuleParam, Decl, PipelineDecl, Step, TriggerDecl, Value } from '../ast.js';
import type { Span } from '../../../base/source/span.js';
import type {
  AccountDeclCstNode,
  BranchDeclCstNode,
  CapsuleDeclCstNode,
  CapsuleOutputCstNode,
  FileCstNode,
  GlobalDeclCstNode,
  ImportDeclCstNode,
  PipelineDeclCstNode,
  SchemaDeclCstNode,
  StoreDeclCstNode,
  TriggerDeclCstNode,
} from '../../../grammar/generated/cst.js';
import * as T from '../../../grammar/tokens.js';
import { invalidName, noTrigger, secondOnError, secondTrigger, triggerAfterSteps } from '../errors.js';
import { first, inSourceOrder, token, type AstContext } from './access.js';
import { stepsBlock, step } from './steps.js';
import { missingBlock, object, stringText, stringToken, value } from './values.js';

const DECLARATION_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*$/;

/** The declarations of a file, in source order (its `test` blocks are read by ./tests.ts). */
export function declarations(ctx: AstContext, cst: FileCstNode): Decl[] {
  const c = cst.children;
  const decls: Decl[] = [];
  for (const node of inSourceOrder<DeclarationNode>(
    c.importDecl,
    c.schemaDecl,
    c.accountDecl,
    c.globalDecl,
    c.storeDecl,
    c.pipelineDecl,
    c.capsuleDecl,
  )) {
    const decl = declaration(ctx, node);
    if (decl) decls.push(decl);
  }
  return decls;
}

type DeclarationNode =
  | ImportDeclCstNode
  | SchemaDeclCstNode
  | AccountDeclCstNode
  | GlobalDeclCstNode
  | StoreDeclCstNode
  | PipelineDeclCstNode
  | CapsuleDeclCstNode;

/** A declaration or branch name: reported if it uses `$` (allowed only in keys). */
function name(ctx: AstContext, written: IToken): { name: string; nameSpan: Span } {
  const nameSpan = ctx.tokenSpan(written);
  if (!DECLARATION_NAME.test(written.image)) ctx.report(invalidName(nameSpan, written.image));
  return { name: written.image, nameSpan };
}

function declaration(ctx: AstContext, node: DeclarationNode): Decl | undefined {
  const whole = ctx.nodeSpan(node);
  if (!whole) return undefined;
  switch (node.name) {
    case 'importDecl': {
      const pathToken = token(node.children.path);
      if (!pathToken) return undefined;
      const alias = token(node.children.alias);
      return {
        kind: 'import',
        path: stringText(ctx, pathToken),
        pathSpan: ctx.tokenSpan(pathToken),
        ...(alias ? { alias: alias.image, aliasSpan: ctx.tokenSpan(alias) } : {}),
        span: whole,
      };
    }
    case 'schemaDecl': {
      const nameToken = token(node.children.name);
      const schema = value(ctx, first(node.children.value));
      if (!nameToken || !schema) return undefined;
      return { kind: 'schema', ...name(ctx, nameToken), value: schema, span: whole };
    }
    case 'accountDecl': {
      const nameToken = token(node.children.name);
      const typeToken = token(node.children.accountType);
      const config = object(ctx, first(node.children.object));
      if (!nameToken || !typeToken || !config) return undefined;
      return {
        kind: 'account',
        ...name(ctx, nameToken),
        accountType: typeToken.image,
        typeSpan: ctx.tokenSpan(typeToken),
        config,
        span: whole,
      };
    }
    case 'globalDecl': {
      const nameToken = token(node.children.name);
      const global = value(ctx, first(node.children.value));
      if (!nameToken || !global) return undefined;
      return { kind: 'global', ...name(ctx, nameToken), value: global, span: whole };
    }
    case 'storeDecl': {
      const nameToken = token(node.children.name);
      if (!nameToken) return undefined;
      const options = object(ctx, first(node.children.object));
      return { kind: 'store', ...name(ctx, nameToken), ...(options ? { options } : {}), span: whole };
    }
    case 'pipelineDecl':
      return pipeline(ctx, node, whole);
    case 'capsuleDecl':
      return capsule(ctx, node, whole);
  }
}

function pipeline(ctx: AstContext, node: PipelineDeclCstNode, whole: Span): PipelineDecl | undefined {
  const nameToken = token(node.children.name);
  if (!nameToken) return undefined;
  const named = name(ctx, nameToken);
  const options = object(ctx, first(node.children.parenEntries));
  let trigger: TriggerDecl | undefined;
  let triggerSeen = false;
  let firstNonTrigger: Span | undefined;
  const steps: Step[] = [];
  let onError: Step[] | undefined;
  let onErrorSpan: Span | undefined;
  const branches: BranchDecl[] = [];
  for (const item of inSourceOrder(node.children.pipelineItem)) {
    const triggerNode = first(item.children.triggerDecl);
    if (triggerNode) {
      triggerSeen = true;
      const built = triggerOf(ctx, triggerNode);
      if (!built) continue;
      if (trigger) {
        ctx.report(secondTrigger(named.name, built.kindSpan, trigger.kindSpan));
        continue;
      }
      if (firstNonTrigger) ctx.report(triggerAfterSteps(named.name, built.kindSpan, firstNonTrigger));
      trigger = built;
      continue;
    }
    const itemSpan = ctx.nodeSpan(item);
    if (itemSpan && !firstNonTrigger) firstNonTrigger = itemSpan;
    const onErrorNode = first(item.children.onErrorDecl);
    if (onErrorNode) {
      const keyword = token(onErrorNode.children.OnError);
      const keywordSpan = keyword ? ctx.tokenSpan(keyword) : itemSpan;
      if (onError && keywordSpan) {
        ctx.report(secondOnError(named.name, keywordSpan, onErrorSpan));
        continue;
      }
      onError = stepsBlock(ctx, first(onErrorNode.children.stepsBlock));
      onErrorSpan = keywordSpan;
      continue;
    }
    const branchNode = first(item.children.branchDecl);
    if (branchNode) {
      const built = branch(ctx, branchNode);
      if (built) branches.push(built);
      continue;
    }
    const built = step(ctx, first(item.children.step));
    if (built) steps.push(built);
  }
  // A pipeline cut short by a syntax error may have lost its trigger to recovery: do not pile on.
  if (!triggerSeen && node.recoveredNode !== true) ctx.report(noTrigger(named.name, named.nameSpan));
  return {
    kind: 'pipeline',
    ...named,
    ...(options ? { options } : {}),
    ...(trigger ? { trigger } : {}),
    steps,
    ...(onError ? { onError } : {}),
    branches,
    span: whole,
  };
}

function triggerOf(ctx: AstContext, node: TriggerDeclCstNode): TriggerDecl | undefined {
  const kindToken = token(node.children.triggerKind);
  const whole = ctx.nodeSpan(node);
  if (!kindToken || !whole) return undefined;
  const kindSpan = ctx.tokenSpan(kindToken);
  const config = object(ctx, first(node.children.object)) ?? missingBlock(ctx, 'trigger', kindToken.image, kindSpan);
  return { kind: kindToken.image, kindSpan, config, span: whole };
}

function branch(ctx: AstContext, node: BranchDeclCstNode): BranchDecl | undefined {
  const nameToken = token(node.children.name);
  const whole = ctx.nodeSpan(node);
  if (!nameToken || !whole) return undefined;
  return { ...name(ctx, nameToken), steps: stepsBlock(ctx, first(node.children.stepsBlock)), span: whole };
}

function capsule(ctx: AstContext, node: CapsuleDeclCstNode, whole: Span): CapsuleDecl | undefined {
  const nameToken = token(node.children.name);
  if (!nameToken) return undefined;
  const params: CapsuleParam[] = [];
  for (const param of node.children.capsuleParam ?? []) {
    const paramName = token(param.children.name);
    if (!paramName) continue;
    const type = token(param.children.type);
    params.push({
      name: paramName.image,
      nameSpan: ctx.tokenSpan(paramName),
      ...(type ? { type: type.image, typeSpan: ctx.tokenSpan(type) } : {}),
    });
  }
  const output = capsuleOutput(ctx, first(node.children.capsuleOutput));
  return {
    kind: 'capsule',
    ...name(ctx, nameToken),
    params,
    ...(output ? { output } : {}),
    steps: stepsBlock(ctx, first(node.children.stepsBlock)),
    span: whole,
  };
}

function capsuleOutput(ctx: AstContext, node: CapsuleOutputCstNode | undefined): Value | undefined {
  const ref = token(node?.children.ref);
  if (ref) {
    if (ref.tokenType === T.StringLiteral) return stringToken(ctx, ref);
    return { kind: 'ident', name: ref.image, span: ctx.tokenSpan(ref) };
  }
  return object(ctx, first(node?.children.object));
}
