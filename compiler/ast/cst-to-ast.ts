/**
 * CST → AST: turns the Chevrotain CST of one file (grammar/parse.ts) into the AST of ast.ts, and
 * reports the structural mistakes the lenient grammar lets through (PIPE1013–PIPE1027): missing
 * colon or value, a step without its `{ }`, trigger missing / twice / late, bad status codes,
 * `env(…)` misuse, duplicate keys. Works on partial CSTs from error recovery: anything missing is
 * skipped, never guessed. No Chevrotain type leaves this file.
 */
import type { CstElement, CstNode, IToken } from 'chevrotain';
import type {
  ArrayValue, BranchBody, BranchDecl, CapsuleDecl, CapsuleParam, ChoiceStep, ConnectorStep, Decl, EnvValue,
  FailStep, ForEachStep, HeaderArg, ObjectEntry, ObjectValue, PipeFile, PipelineDecl, RespondStep, Step,
  StepsEntry, TaggedValue, TriggerDecl, TryStep, Value, WhenClause,
} from './ast.js';
import type { Diagnostic, Result } from '../diagnostics/diagnostic.js';
import { diagnostic } from '../diagnostics/codes.js';
import { joinSpans, span, type Span } from '../source/span.js';
import { locationSpan, tokenSpan } from '../../grammar/lexer.js';
import { bracesFromToken, decodeNumber, decodeQuotedString, decodeTripleString } from '../../grammar/literals.js';
import * as T from '../../grammar/tokens.js';

export function cstToAst(file: string, cst: CstNode): Result<PipeFile> {
  const builder = new AstBuilder(file);
  const decls = builder.file(cst);
  return { value: { path: file, decls }, diagnostics: builder.diagnostics };
}

// ───────────────────────────── CST access ─────────────────────────────

function isToken(element: CstElement): element is IToken {
  return 'image' in element;
}

/** Real tokens only: tokens invented by error recovery carry no text and are treated as absent. */
function tokensOf(node: CstNode | undefined, name: string): IToken[] {
  const found = node?.children[name] ?? [];
  return found.filter((e): e is IToken => isToken(e) && !e.isInsertedInRecovery && !Number.isNaN(e.startOffset));
}

function tokenOf(node: CstNode | undefined, name: string): IToken | undefined {
  return tokensOf(node, name)[0];
}

function nodesOf(node: CstNode | undefined, name: string): CstNode[] {
  return (node?.children[name] ?? []).filter((e): e is CstNode => !isToken(e));
}

function nodeOf(node: CstNode | undefined, name: string): CstNode | undefined {
  return nodesOf(node, name)[0];
}

function startOf(element: CstElement): number {
  if (isToken(element)) return element.startOffset;
  const start = element.location?.startOffset;
  return start === undefined || Number.isNaN(start) ? Number.POSITIVE_INFINITY : start;
}

/** All child nodes of `node` in source order (Chevrotain groups children by name). */
function orderedChildren(node: CstNode, names: readonly string[]): CstNode[] {
  return names.flatMap((name) => nodesOf(node, name)).sort((a, b) => startOf(a) - startOf(b));
}

const DECLARATION_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*$/;
const DECL_RULES = ['importDecl', 'schemaDecl', 'accountDecl', 'globalDecl', 'storeDecl', 'pipelineDecl', 'capsuleDecl'];
const PIPELINE_ITEMS = ['pipelineItem'];

// ───────────────────────────── builder ─────────────────────────────

class AstBuilder {
  readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly path: string) {}

  private report(code: string, facts: Parameters<typeof diagnostic>[1]): void {
    this.diagnostics.push(diagnostic(code, facts));
  }

  private tokenSpan(token: IToken): Span {
    return tokenSpan(this.path, token);
  }

  /** A node's span; from its location, or from its tokens when recovery left no location. */
  private nodeSpan(node: CstNode): Span | undefined {
    const located = locationSpan(this.path, node.location);
    if (located) return located;
    let result: Span | undefined;
    for (const children of Object.values(node.children)) {
      for (const child of children) {
        const part = isToken(child)
          ? child.isInsertedInRecovery || Number.isNaN(child.startOffset) ? undefined : this.tokenSpan(child)
          : this.nodeSpan(child);
        if (part) result = result ? joinSpans(result, part) : part;
      }
    }
    return result;
  }

  private spanFrom(first: IToken, node: CstNode): Span {
    const whole = this.nodeSpan(node);
    return whole ? joinSpans(this.tokenSpan(first), whole) : this.tokenSpan(first);
  }

  /** A declaration or branch name: reported if it uses `$` (allowed only in keys). */
  private name(token: IToken): { name: string; nameSpan: Span } {
    const nameSpan = this.tokenSpan(token);
    if (!DECLARATION_NAME.test(token.image)) {
      this.report('PIPE1025', {
        message: `\`${token.image}\` is not a valid name`,
        span: nameSpan,
        label: 'names use letters, digits, `_` and inner `-`',
      });
    }
    return { name: token.image, nameSpan };
  }

  // ───────────────────────────── file and declarations ─────────────────────────────

  file(cst: CstNode): Decl[] {
    const decls: Decl[] = [];
    for (const node of orderedChildren(cst, DECL_RULES)) {
      const decl = this.decl(node);
      if (decl) decls.push(decl);
    }
    return decls;
  }

  private decl(node: CstNode): Decl | undefined {
    const whole = this.nodeSpan(node);
    if (!whole) return undefined;
    switch (node.name) {
      case 'importDecl': {
        const pathToken = tokenOf(node, 'path');
        if (!pathToken) return undefined;
        const alias = tokenOf(node, 'alias');
        return {
          kind: 'import',
          path: this.stringText(pathToken),
          pathSpan: this.tokenSpan(pathToken),
          ...(alias ? { alias: alias.image, aliasSpan: this.tokenSpan(alias) } : {}),
          span: whole,
        };
      }
      case 'schemaDecl': {
        const nameToken = tokenOf(node, 'name');
        const value = this.valueNode(nodeOf(node, 'value'));
        if (!nameToken || !value) return undefined;
        return { kind: 'schema', ...this.name(nameToken), value, span: whole };
      }
      case 'accountDecl': {
        const nameToken = tokenOf(node, 'name');
        const typeToken = tokenOf(node, 'accountType');
        const config = this.object(nodeOf(node, 'object'));
        if (!nameToken || !typeToken || !config) return undefined;
        return {
          kind: 'account', ...this.name(nameToken),
          accountType: typeToken.image, typeSpan: this.tokenSpan(typeToken), config, span: whole,
        };
      }
      case 'globalDecl': {
        const nameToken = tokenOf(node, 'name');
        const value = this.valueNode(nodeOf(node, 'value'));
        if (!nameToken || !value) return undefined;
        return { kind: 'global', ...this.name(nameToken), value, span: whole };
      }
      case 'storeDecl': {
        const nameToken = tokenOf(node, 'name');
        if (!nameToken) return undefined;
        const options = this.object(nodeOf(node, 'object'));
        return { kind: 'store', ...this.name(nameToken), ...(options ? { options } : {}), span: whole };
      }
      case 'pipelineDecl':
        return this.pipeline(node, whole);
      case 'capsuleDecl':
        return this.capsule(node, whole);
      default:
        return undefined;
    }
  }

  private pipeline(node: CstNode, whole: Span): PipelineDecl | undefined {
    const nameToken = tokenOf(node, 'name');
    if (!nameToken) return undefined;
    const named = this.name(nameToken);
    const options = this.parenEntries(nodeOf(node, 'parenEntries'));
    let trigger: TriggerDecl | undefined;
    let triggerSeen = false;
    let firstNonTrigger: Span | undefined;
    const steps: Step[] = [];
    let onError: Step[] | undefined;
    let onErrorSpan: Span | undefined;
    const branches: BranchDecl[] = [];
    for (const item of orderedChildren(node, PIPELINE_ITEMS)) {
      const triggerNode = nodeOf(item, 'triggerDecl');
      if (triggerNode) {
        triggerSeen = true;
        const built = this.trigger(triggerNode);
        if (!built) continue;
        if (trigger) {
          this.report('PIPE1017', {
            message: `pipeline \`${named.name}\` has a second trigger`,
            span: built.kindSpan,
            label: 'second trigger',
            secondary: [{ span: trigger.kindSpan, message: 'first trigger' }],
            hint: 'a pipeline has one trigger; start the same steps from another source with a second pipeline',
          });
          continue;
        }
        if (firstNonTrigger) {
          this.report('PIPE1018', {
            message: `the trigger of pipeline \`${named.name}\` must come before its steps`,
            span: built.kindSpan,
            label: 'trigger after steps',
            secondary: [{ span: firstNonTrigger, message: 'first step' }],
            hint: 'move the trigger to the top of the pipeline',
          });
        }
        trigger = built;
        continue;
      }
      const itemSpan = this.nodeSpan(item);
      if (itemSpan && !firstNonTrigger) firstNonTrigger = itemSpan;
      const onErrorNode = nodeOf(item, 'onErrorDecl');
      if (onErrorNode) {
        const keyword = tokenOf(onErrorNode, 'OnError');
        const keywordSpan = keyword ? this.tokenSpan(keyword) : itemSpan;
        if (onError && keywordSpan) {
          this.report('PIPE1024', {
            message: `pipeline \`${named.name}\` has a second \`on-error\` block`,
            span: keywordSpan,
            label: 'second on-error',
            secondary: onErrorSpan ? [{ span: onErrorSpan, message: 'first on-error' }] : [],
            hint: 'merge the steps into one `on-error { … }` block',
          });
          continue;
        }
        onError = this.stepsBlock(nodeOf(onErrorNode, 'stepsBlock'));
        onErrorSpan = keywordSpan;
        continue;
      }
      const branchNode = nodeOf(item, 'branchDecl');
      if (branchNode) {
        const branch = this.branch(branchNode);
        if (branch) branches.push(branch);
        continue;
      }
      const step = this.step(nodeOf(item, 'step'));
      if (step) steps.push(step);
    }
    // A pipeline cut short by a syntax error may have lost its trigger to recovery: do not pile on.
    if (!triggerSeen && node.recoveredNode !== true) {
      this.report('PIPE1016', {
        message: `pipeline \`${named.name}\` has no trigger`,
        span: named.nameSpan,
        label: 'no trigger',
        hint: 'start the pipeline with a trigger, e.g. `trigger http { method: POST, path: "/orders" }`',
      });
    }
    return {
      kind: 'pipeline', ...named,
      ...(options ? { options } : {}),
      ...(trigger ? { trigger } : {}),
      steps,
      ...(onError ? { onError } : {}),
      branches,
      span: whole,
    };
  }

  private trigger(node: CstNode): TriggerDecl | undefined {
    const kindToken = tokenOf(node, 'triggerKind');
    const whole = this.nodeSpan(node);
    if (!kindToken || !whole) return undefined;
    const kindSpan = this.tokenSpan(kindToken);
    const config = this.object(nodeOf(node, 'object')) ?? this.missingBlock('trigger', kindToken.image, kindSpan);
    return { kind: kindToken.image, kindSpan, config, span: whole };
  }

  /** Reports a step or trigger written without its `{ … }` and stands in an empty block. */
  private missingBlock(what: 'trigger' | 'step', name: string, at: Span): ObjectValue {
    this.report('PIPE1019', {
      message: `${what} \`${name}\` needs a parameter block \`{ … }\``,
      span: at,
      label: 'no `{ … }` after this',
      hint: `write \`${what === 'trigger' ? 'trigger ' : ''}${name} { }\`, even when there is nothing to set`,
    });
    return { kind: 'object', entries: [], span: span(this.path, at.end, at.end) };
  }

  private branch(node: CstNode): BranchDecl | undefined {
    const nameToken = tokenOf(node, 'name');
    const whole = this.nodeSpan(node);
    if (!nameToken || !whole) return undefined;
    return { ...this.name(nameToken), steps: this.stepsBlock(nodeOf(node, 'stepsBlock')), span: whole };
  }

  private capsule(node: CstNode, whole: Span): CapsuleDecl | undefined {
    const nameToken = tokenOf(node, 'name');
    if (!nameToken) return undefined;
    const params: CapsuleParam[] = [];
    for (const param of nodesOf(node, 'capsuleParam')) {
      const paramName = tokenOf(param, 'name');
      if (!paramName) continue;
      const type = tokenOf(param, 'type');
      params.push({
        name: paramName.image,
        nameSpan: this.tokenSpan(paramName),
        ...(type ? { type: type.image, typeSpan: this.tokenSpan(type) } : {}),
      });
    }
    const output = this.capsuleOutput(nodeOf(node, 'capsuleOutput'));
    return {
      kind: 'capsule', ...this.name(nameToken), params,
      ...(output ? { output } : {}),
      steps: this.stepsBlock(nodeOf(node, 'stepsBlock')),
      span: whole,
    };
  }

  private capsuleOutput(node: CstNode | undefined): Value | undefined {
    const ref = tokenOf(node, 'ref');
    if (ref) {
      if (ref.tokenType === T.StringLiteral) return this.stringToken(ref);
      return { kind: 'ident', name: ref.image, span: this.tokenSpan(ref) };
    }
    return this.object(nodeOf(node, 'object'));
  }

  // ───────────────────────────── steps ─────────────────────────────

  private stepsBlock(node: CstNode | undefined): Step[] {
    const steps: Step[] = [];
    for (const stepNode of nodesOf(node, 'step')) {
      const step = this.step(stepNode);
      if (step) steps.push(step);
    }
    return steps;
  }

  private step(node: CstNode | undefined): Step | undefined {
    if (!node) return undefined;
    const inner = orderedChildren(node, ['respondStep', 'failStep', 'choiceStep', 'tryStep', 'forEachStep', 'connectorStep'])[0];
    const whole = inner && this.nodeSpan(inner);
    if (!inner || !whole) return undefined;
    switch (inner.name) {
      case 'respondStep':
        return this.respond(inner, whole);
      case 'failStep':
        return this.fail(inner, whole);
      case 'choiceStep':
        return this.choice(inner, whole);
      case 'tryStep':
        return this.tryStep(inner, whole);
      case 'forEachStep':
        return this.forEach(inner, whole);
      default:
        return this.connector(inner, whole);
    }
  }

  private connector(node: CstNode, whole: Span): ConnectorStep | undefined {
    const nameToken = tokenOf(node, 'connector');
    if (!nameToken) return undefined;
    const args: HeaderArg[] = tokensOf(node, 'arg').map((arg) =>
      arg.tokenType === T.StringLiteral || arg.tokenType === T.TripleString
        ? { kind: 'string', text: this.stringText(arg), span: this.tokenSpan(arg) }
        : { kind: 'word', text: arg.image, span: this.tokenSpan(arg) },
    );
    const connectorSpan = this.tokenSpan(nameToken);
    const lastHeader = args[args.length - 1]?.span ?? connectorSpan;
    const params =
      this.object(nodeOf(node, 'object')) ??
      this.missingBlock('step', [nameToken.image, ...args.map((a) => a.text)].join(' '), joinSpans(connectorSpan, lastHeader));
    return { kind: 'connector', connector: nameToken.image, connectorSpan, args, params, span: whole };
  }

  /** An HTTP status: an integer literal from 100 to 599, or undefined after reporting. */
  private status(token: IToken): number | undefined {
    const decoded = decodeNumber(this.path, token.image, token.startOffset);
    const value = decoded.value;
    if (value.kind === 'number' && Number.isInteger(value.value) && value.value >= 100 && value.value <= 599 && decoded.diagnostics.length === 0) {
      return value.value;
    }
    this.report('PIPE1021', {
      message: `\`${token.image}\` is not an HTTP status code`,
      span: this.tokenSpan(token),
      label: 'expected an integer from 100 to 599',
    });
    return undefined;
  }

  private respond(node: CstNode, whole: Span): RespondStep | undefined {
    const statusToken = tokenOf(node, 'status');
    if (!statusToken) return undefined;
    const status = this.status(statusToken) ?? 500;
    const body = this.valueNode(nodeOf(node, 'value'));
    const headers = this.object(nodeOf(node, 'object'));
    return {
      kind: 'respond', status, statusSpan: this.tokenSpan(statusToken),
      ...(body ? { body } : {}),
      ...(headers ? { headers } : {}),
      span: whole,
    };
  }

  private fail(node: CstNode, whole: Span): FailStep | undefined {
    const message = this.valueNode(nodeOf(node, 'value'));
    if (!message) return undefined;
    const statusToken = tokenOf(node, 'status');
    const status = statusToken ? this.status(statusToken) : undefined;
    return {
      kind: 'fail',
      ...(statusToken && status !== undefined ? { status, statusSpan: this.tokenSpan(statusToken) } : {}),
      message,
      span: whole,
    };
  }

  private choice(node: CstNode, whole: Span): ChoiceStep {
    const label = tokenOf(node, 'label');
    const whens: WhenClause[] = [];
    for (const clause of nodesOf(node, 'whenClause')) {
      const condition = this.condition(nodeOf(clause, 'condition'));
      const body = this.branchBody(nodeOf(clause, 'branchBody'));
      const clauseSpan = this.nodeSpan(clause);
      if (condition && body && clauseSpan) whens.push({ condition, body, span: clauseSpan });
    }
    const otherwiseNode = nodeOf(node, 'otherwiseClause');
    const otherwise = this.branchBody(nodeOf(otherwiseNode, 'branchBody'));
    const otherwiseSpan = otherwiseNode && this.nodeSpan(otherwiseNode);
    return {
      kind: 'choice',
      ...(label ? { label: label.image, labelSpan: this.tokenSpan(label) } : {}),
      whens,
      ...(otherwise && otherwiseSpan ? { otherwise, otherwiseSpan } : {}),
      span: whole,
    };
  }

  private condition(node: CstNode | undefined): Value | undefined {
    const braces = tokenOf(node, 'Braces');
    if (braces) return bracesFromToken(this.path, braces.image, braces.startOffset);
    const text = tokenOf(node, 'StringLiteral') ?? tokenOf(node, 'TripleString');
    return text ? this.stringToken(text) : undefined;
  }

  private branchBody(node: CstNode | undefined): BranchBody | undefined {
    const block = nodeOf(node, 'stepsBlock');
    if (block) {
      const blockSpan = this.nodeSpan(block);
      return blockSpan ? { kind: 'inline', steps: this.stepsBlock(block), span: blockSpan } : undefined;
    }
    const target = tokenOf(node, 'target');
    return target ? { kind: 'ref', name: target.image, span: this.tokenSpan(target) } : undefined;
  }

  private tryStep(node: CstNode, whole: Span): TryStep {
    const catchToken = tokenOf(node, 'Catch');
    const catchBlock = nodeOf(node, 'catchBody');
    const catchBlockSpan = catchBlock && this.nodeSpan(catchBlock);
    if (!catchToken) {
      const tryToken = tokenOf(node, 'Try');
      this.report('PIPE1027', {
        message: '`try` block without `catch`',
        span: tryToken ? this.tokenSpan(tryToken) : whole,
        label: 'no `catch { … }` follows',
        hint: 'add `catch { … }` after the try block (an empty `catch { }` ignores the error)',
      });
    }
    const catchSpan = catchToken
      ? catchBlockSpan ? joinSpans(this.tokenSpan(catchToken), catchBlockSpan) : this.tokenSpan(catchToken)
      : span(this.path, whole.end, whole.end);
    return {
      kind: 'try',
      body: this.stepsBlock(nodeOf(node, 'body')),
      catchBody: this.stepsBlock(catchBlock),
      catchSpan,
      span: whole,
    };
  }

  private forEach(node: CstNode, whole: Span): ForEachStep | undefined {
    const over = this.condition(nodeOf(node, 'over'));
    if (!over) return undefined;
    const label = tokenOf(node, 'label');
    const options = this.parenEntries(nodeOf(node, 'parenEntries'));
    return {
      kind: 'for-each',
      ...(label ? { label: label.image, labelSpan: this.tokenSpan(label) } : {}),
      over,
      ...(options ? { options } : {}),
      body: this.stepsBlock(nodeOf(node, 'stepsBlock')),
      span: whole,
    };
  }

  // ───────────────────────────── values ─────────────────────────────

  private stringToken(token: IToken): Value {
    const decoded =
      token.tokenType === T.TripleString
        ? decodeTripleString(this.path, token.image, token.startOffset)
        : decodeQuotedString(this.path, token.image, token.startOffset);
    this.diagnostics.push(...decoded.diagnostics);
    return decoded.value;
  }

  /** The text of a string used as a path, key or header arg (expressions kept as written). */
  private stringText(token: IToken): string {
    const value = this.stringToken(token);
    if (value.kind === 'string') return value.value;
    if (value.kind !== 'template') return token.image;
    return value.parts.map((part) => (part.kind === 'text' ? part.value : `{{${part.text}}}`)).join('');
  }

  private valueNode(node: CstNode | undefined): Value | undefined {
    if (!node) return undefined;
    const whole = this.nodeSpan(node);
    const objectNode = nodeOf(node, 'object');
    if (objectNode) return this.object(objectNode);
    const arrayNode = nodeOf(node, 'array');
    if (arrayNode) return this.array(arrayNode);
    const callNode = nodeOf(node, 'call');
    if (callNode) return this.call(callNode);
    const taggedNode = nodeOf(node, 'tagged');
    if (taggedNode) return this.tagged(taggedNode);
    const text = tokenOf(node, 'StringLiteral') ?? tokenOf(node, 'TripleString');
    if (text) return this.stringToken(text);
    const number = tokenOf(node, 'NumberLiteral');
    if (number) {
      const decoded = decodeNumber(this.path, number.image, number.startOffset);
      this.diagnostics.push(...decoded.diagnostics);
      return decoded.value;
    }
    const braces = tokenOf(node, 'Braces');
    if (braces) return bracesFromToken(this.path, braces.image, braces.startOffset);
    if (whole && tokenOf(node, 'True')) return { kind: 'boolean', value: true, span: whole };
    if (whole && tokenOf(node, 'False')) return { kind: 'boolean', value: false, span: whole };
    if (whole && tokenOf(node, 'Null')) return { kind: 'null', span: whole };
    const ident = tokenOf(node, 'ident');
    if (ident) return { kind: 'ident', name: ident.image, span: this.tokenSpan(ident) };
    return undefined;
  }

  private array(node: CstNode): ArrayValue | undefined {
    const whole = this.nodeSpan(node);
    if (!whole) return undefined;
    const items: Value[] = [];
    for (const item of nodesOf(node, 'value')) {
      const value = this.valueNode(item);
      if (value) items.push(value);
    }
    return { kind: 'array', items, span: whole };
  }

  private call(node: CstNode): EnvValue | undefined {
    const callee = tokenOf(node, 'callee');
    const whole = this.nodeSpan(node);
    if (!callee || !whole) return undefined;
    if (callee.image !== 'env') {
      this.report('PIPE1022', {
        message: `\`${callee.image}(…)\` is not allowed here; the only value function is \`env\``,
        span: this.tokenSpan(callee),
        label: 'unknown function',
        hint: `to compute a value, use Double Braces: \`{{ ${callee.image}(…) }}\``,
      });
      return undefined;
    }
    const args = nodesOf(node, 'arg').map((arg) => this.valueNode(arg));
    const [name, fallback] = args;
    const plain = (v: Value | undefined): v is Extract<Value, { kind: 'string' }> => v?.kind === 'string';
    if (args.length < 1 || args.length > 2 || !plain(name) || (args.length === 2 && !plain(fallback))) {
      this.report('PIPE1023', {
        message: '`env` takes a variable name and an optional default, both plain strings',
        span: whole,
        label: 'expected env("NAME") or env("NAME", "default")',
      });
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

  private tagged(node: CstNode): TaggedValue | undefined {
    const tag = tokenOf(node, 'tag');
    const value = this.object(nodeOf(node, 'object'));
    const whole = this.nodeSpan(node);
    if (!tag || !value || !whole) return undefined;
    return { kind: 'tagged', tag: tag.image, tagSpan: this.tokenSpan(tag), value, span: whole };
  }

  private object(node: CstNode | undefined): ObjectValue | undefined {
    if (!node) return undefined;
    const whole = this.nodeSpan(node);
    if (!whole) return undefined;
    return { kind: 'object', entries: this.entries(node), span: whole };
  }

  private parenEntries(node: CstNode | undefined): ObjectValue | undefined {
    return this.object(node);
  }

  private entries(node: CstNode): (ObjectEntry | StepsEntry)[] {
    const entries: (ObjectEntry | StepsEntry)[] = [];
    const firstKeySpan = new Map<string, Span>();
    for (const entryNode of nodesOf(node, 'entry')) {
      const entry = this.entry(entryNode);
      if (!entry) continue;
      const earlier = firstKeySpan.get(entry.key);
      if (earlier) {
        this.report('PIPE1026', {
          message: `key \`${entry.key}\` appears twice in this object`,
          span: entry.keySpan,
          label: 'duplicate key',
          secondary: [{ span: earlier, message: 'first used here' }],
          hint: 'remove one of the two entries',
        });
      } else {
        firstKeySpan.set(entry.key, entry.keySpan);
      }
      entries.push(entry);
    }
    return entries;
  }

  private entry(node: CstNode): ObjectEntry | StepsEntry | undefined {
    const keyToken = tokenOf(node, 'key');
    const whole = this.nodeSpan(node);
    if (!keyToken || !whole) return undefined;
    const key = keyToken.tokenType === T.StringLiteral ? this.stringText(keyToken) : keyToken.image;
    const keySpan = this.tokenSpan(keyToken);
    const block = nodeOf(node, 'stepsBlock');
    if (block) return { kind: 'steps-entry', key, keySpan, steps: this.stepsBlock(block), span: whole };
    const withoutColon = nodeOf(node, 'valueWithoutColon');
    if (withoutColon) {
      this.report('PIPE1013', {
        message: `missing \`:\` after key \`${key}\``,
        span: keySpan,
        label: 'add `:` after this key',
        hint: `write \`${keyToken.image}: …\``,
      });
      const value = this.valueNode(withoutColon);
      return value ? { kind: 'entry', key, keySpan, value, span: whole } : undefined;
    }
    const valueNode = nodeOf(node, 'value');
    const value = this.valueNode(valueNode);
    if (value) return { kind: 'entry', key, keySpan, value, span: whole };
    if (valueNode) return undefined; // a value that was written but rejected (already reported)
    const colon = tokenOf(node, 'Colon');
    const nodeHasErrors = node.recoveredNode === true;
    if (!nodeHasErrors) {
      this.report('PIPE1014', {
        message: `key \`${key}\` has no value`,
        span: colon ? this.tokenSpan(colon) : keySpan,
        label: colon ? 'expected a value after this' : 'expected `: value` after this key',
        hint: `write \`${keyToken.image}: <value>\`, or remove the entry`,
      });
    }
    return undefined;
  }
}
