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
  Expectation, FailStep, ForEachStep, HeaderArg, MatchMode, MockDecl, ObjectEntry, ObjectValue, PipeFile, PipelineDecl,
  RespondStep, Step, StepsEntry, TaggedValue, TestDecl, TestInput, TriggerDecl, TryStep, Value, WhenClause,
} from './ast.js';
import type { Diagnostic, Result } from '../../base/diagnostics/diagnostic.js';
import { diagnostic } from '../../base/diagnostics/codes.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import { joinSpans, span, type Span } from '../../base/source/span.js';
import { locationSpan, tokenSpan } from '../../grammar/lexer.js';
import { bracesFromToken, decodeNumber, decodeQuotedString, decodeTripleString } from './token-values.js';
import * as T from '../../grammar/tokens.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';

export function cstToAst(file: string, cst: CstNode): Result<PipeFile> {
  const builder = new AstBuilder(file);
  const decls = builder.file(cst);
  const tests = builder.tests(cst);
  return { value: { path: file, decls, ...(tests.length > 0 ? { tests } : {}) }, diagnostics: builder.diagnostics };
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

  private report(code: DiagnosticCode, facts: Parameters<typeof diagnostic>[1]): void {
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

  // ───────────────────────────── tests (`pipec test`) ─────────────────────────────

  tests(cst: CstNode): TestDecl[] {
    const tests: TestDecl[] = [];
    for (const node of nodesOf(cst, 'testDecl')) {
      const test = this.test(node);
      if (test) tests.push(test);
    }
    return tests;
  }

  private test(node: CstNode): TestDecl | undefined {
    const nameToken = tokenOf(node, 'name');
    const whole = this.nodeSpan(node);
    if (!nameToken || !whole) return undefined;
    let pipeline: TestDecl['pipeline'];
    let input: TestInput | undefined;
    const mocks: MockDecl[] = [];
    const expects: Expectation[] = [];
    const settingSpans = new Map<string, Span>();
    for (const item of nodesOf(node, 'testItem')) {
      const mockNode = nodeOf(item, 'mockDecl');
      if (mockNode) {
        const mock = this.mock(mockNode);
        if (mock) mocks.push(mock);
        continue;
      }
      const expectNode = nodeOf(item, 'expectDecl');
      if (expectNode) {
        const expectation = this.expectation(expectNode);
        if (expectation) expects.push(expectation);
        continue;
      }
      const entryNode = nodeOf(item, 'entry');
      const keyToken = tokenOf(entryNode, 'key');
      if (!entryNode || !keyToken) continue;
      const key = keyToken.image;
      const keySpan = this.tokenSpan(keyToken);
      if (key !== 'pipeline' && key !== 'input') {
        const close = suggest(key, ['pipeline', 'input']);
        this.report('PIPE7001', {
          message: `\`${key}\` is not a test setting`,
          span: keySpan,
          label: close ? `did you mean \`${close}\`?` : 'unknown setting',
          body: ['A test takes `pipeline: NAME` and `input: VALUE`, then `mock …` and `expect …` lines.'],
        });
        continue;
      }
      const earlier = settingSpans.get(key);
      if (earlier) {
        this.report('PIPE7005', {
          message: `this test sets \`${key}\` twice`,
          span: keySpan,
          label: 'second time',
          secondary: [{ span: earlier, message: 'first set here' }],
        });
        continue;
      }
      settingSpans.set(key, keySpan);
      if (key === 'input') input = this.testInput(entryNode) ?? input;
      else pipeline = this.testPipeline(entryNode) ?? pipeline;
    }
    return {
      kind: 'test',
      name: this.stringText(nameToken),
      nameSpan: this.tokenSpan(nameToken),
      ...(pipeline ? { pipeline } : {}),
      ...(input ? { input } : {}),
      mocks,
      expects,
      span: whole,
    };
  }

  private testPipeline(entryNode: CstNode): TestDecl['pipeline'] | undefined {
    const entry = this.entry(entryNode);
    if (!entry || entry.kind !== 'entry') return undefined;
    if (entry.value.kind !== 'ident' && entry.value.kind !== 'string') {
      this.report('PIPE7001', {
        message: '`pipeline` names the pipeline the test runs',
        span: entry.value.span,
        label: 'expected a pipeline name',
        hint: 'write `pipeline: order-flow`',
      });
      return undefined;
    }
    return { name: entry.value.kind === 'ident' ? entry.value.name : entry.value.value, span: entry.value.span };
  }

  /** `input: VALUE` or `input: file("path.json")` (the only place `file(…)` is allowed). */
  private testInput(entryNode: CstNode): TestInput | undefined {
    const call = nodeOf(nodeOf(entryNode, 'value'), 'call');
    const callee = tokenOf(call, 'callee');
    if (call && callee?.image === 'file') {
      const callSpan = this.nodeSpan(call);
      const args = nodesOf(call, 'arg').map((arg) => this.valueNode(arg));
      const [pathValue] = args;
      if (!callSpan) return undefined;
      if (args.length !== 1 || pathValue?.kind !== 'string') {
        this.report('PIPE7004', {
          message: '`file` takes one path, as a plain string',
          span: callSpan,
          label: 'expected file("path.json")',
        });
        return undefined;
      }
      return { kind: 'file', path: pathValue.value, pathSpan: pathValue.span, span: callSpan };
    }
    const entry = this.entry(entryNode);
    if (!entry || entry.kind !== 'entry') return undefined;
    return { kind: 'value', value: entry.value, span: entry.value.span };
  }

  private mock(node: CstNode): MockDecl | undefined {
    const connectorToken = tokenOf(node, 'connector');
    const whole = this.nodeSpan(node);
    if (!connectorToken || !whole) return undefined;
    const args = tokensOf(node, 'arg');
    const [labelToken, modeToken, ...extra] = args;
    const body = this.object(nodeOf(node, 'object'));
    const connectorSpan = this.tokenSpan(connectorToken);
    const bad = (message: string, at: Span, label: string): undefined => {
      this.report('PIPE7003', {
        message,
        span: at,
        label,
        hint: `write \`mock ${connectorToken.image} ${labelToken?.image ?? 'LABEL'} { …output… }\` or \`… fails { code: 503, message: "…" }\``,
      });
      return undefined;
    };
    // The step: a label or a first header word (`reprocess.find`), never a string.
    if (!labelToken || labelToken.tokenType === T.StringLiteral || labelToken.tokenType === T.TripleString) {
      return bad(`a mock names the label of the step it replaces`, labelToken ? this.tokenSpan(labelToken) : connectorSpan, 'expected a step label');
    }
    if (modeToken && modeToken.image !== 'fails') return bad(`unexpected \`${modeToken.image}\` in a mock`, this.tokenSpan(modeToken), 'expected `fails` or `{`');
    const first = extra[0];
    if (first) return bad(`unexpected \`${first.image}\` in a mock`, this.tokenSpan(first), 'expected `{`');
    if (!body) return bad(`the mock of \`${labelToken.image}\` needs a block \`{ … }\``, joinSpans(connectorSpan, this.tokenSpan(modeToken ?? labelToken)), 'no `{ … }` after this');
    return {
      connector: connectorToken.image,
      connectorSpan,
      label: labelToken.image,
      labelSpan: this.tokenSpan(labelToken),
      fails: modeToken !== undefined,
      body,
      span: whole,
    };
  }

  private expectation(node: CstNode): Expectation | undefined {
    const whatToken = tokenOf(node, 'what');
    const whole = this.nodeSpan(node);
    if (!whatToken || !whole) return undefined;
    const parts = nodesOf(node, 'expectPart').map((p) => this.expectPart(p)).filter((p): p is ExpectPart => p !== undefined);
    const what = whatToken.image;
    const built = readExpectation(what, parts, whole);
    if (built.ok) return built.value;
    const known = Object.keys(EXPECTATION_FORMS);
    const form = EXPECTATION_FORMS[what];
    const close = form ? undefined : suggest(what, known);
    this.report('PIPE7002', {
      message: form ? `malformed \`expect ${what}\`` : `\`expect ${what}\` is not an expectation`,
      span: form ? (built.at ?? whole) : this.tokenSpan(whatToken),
      label: form ? built.problem : close ? `did you mean \`${close}\`?` : 'unknown expectation',
      body: [form ? `The form is \`${form}\`.` : `Expectations: ${known.map((k) => `\`${k}\``).join(', ')}.`],
    });
    return undefined;
  }

  private expectPart(node: CstNode): ExpectPart | undefined {
    const whole = this.nodeSpan(node);
    if (!whole) return undefined;
    const word = tokenOf(node, 'word');
    if (word) {
      if (word.tokenType === T.True || word.tokenType === T.False) return { kind: 'value', value: { kind: 'boolean', value: word.tokenType === T.True, span: whole }, span: whole };
      if (word.tokenType === T.Null) return { kind: 'value', value: { kind: 'null', span: whole }, span: whole };
      return { kind: 'word', text: word.image, span: whole };
    }
    const number = tokenOf(node, 'number');
    if (number) {
      const decoded = decodeNumber(this.path, number.image, number.startOffset);
      this.diagnostics.push(...decoded.diagnostics);
      return { kind: 'value', value: decoded.value, span: whole };
    }
    const text = tokenOf(node, 'text');
    if (text) return { kind: 'value', value: this.stringToken(text), span: whole };
    const braces = tokenOf(node, 'braces');
    if (braces) return { kind: 'value', value: bracesFromToken(this.path, braces.image, braces.startOffset), span: whole };
    const value = this.object(nodeOf(node, 'object')) ?? (nodeOf(node, 'array') ? this.array(nodeOf(node, 'array') as CstNode) : undefined);
    return value ? { kind: 'value', value, span: whole } : undefined;
  }
}

// ───────────────────────────── expectations ─────────────────────────────

/** One word or value after `expect WHAT`, before it is given a meaning. */
type ExpectPart =
  | { readonly kind: 'word'; readonly text: string; readonly span: Span }
  | { readonly kind: 'value'; readonly value: Value; readonly span: Span };

/** The form of each expectation, shown when one is malformed. */
const EXPECTATION_FORMS: Readonly<Record<string, string>> = {
  output: 'expect output [contains] VALUE',
  error: 'expect error [contains] VALUE',
  status: 'expect status CODE',
  step: 'expect step LABEL [contains] VALUE',
  branch: 'expect branch "CONDITION" | NAME | otherwise',
  published: 'expect published EVENT [N times] [with VALUE]',
  called: 'expect called LABEL [N times] [with VALUE]',
};

type ReadResult = { readonly ok: true; readonly value: Expectation } | { readonly ok: false; readonly problem: string; readonly at?: Span };

function fail(problem: string, at?: Span): ReadResult {
  return { ok: false, problem, ...(at ? { at } : {}) };
}

/** `[contains] VALUE` at the end of an expectation. */
function readMatch(parts: readonly ExpectPart[]): { match: MatchMode; value: Value } | { problem: string; at?: Span } {
  const [first, second, third] = parts;
  const contains = first?.kind === 'word' && first.text === 'contains';
  const valuePart = contains ? second : first;
  const extra = contains ? third : second;
  if (!valuePart) return { problem: 'expected a value' };
  if (valuePart.kind !== 'value') return { problem: 'expected a value', at: valuePart.span };
  if (extra) return { problem: 'unexpected after the value', at: extra.span };
  return { match: contains ? 'contains' : 'equal', value: valuePart.value };
}

/** `[N times | never] [with VALUE]` after `published EVENT` / `called LABEL`. */
function readCount(parts: readonly ExpectPart[]): { times?: number; with?: Value } | { problem: string; at?: Span } {
  let i = 0;
  let times: number | undefined;
  const at = parts[i];
  if (at?.kind === 'word' && at.text === 'never') {
    times = 0;
    i += 1;
  } else if (at?.kind === 'value' && at.value.kind === 'number') {
    const next = parts[i + 1];
    if (!Number.isInteger(at.value.value) || at.value.value < 0) return { problem: 'a count is a whole number', at: at.span };
    if (next?.kind !== 'word' || (next.text !== 'times' && next.text !== 'time')) return { problem: 'expected `times` after the count', at: next?.span ?? at.span };
    times = at.value.value;
    i += 2;
  }
  let withValue: Value | undefined;
  const w = parts[i];
  if (w?.kind === 'word' && w.text === 'with') {
    const value = parts[i + 1];
    if (value?.kind !== 'value') return { problem: 'expected a value after `with`', at: value?.span ?? w.span };
    withValue = value.value;
    i += 2;
  }
  const extra = parts[i];
  if (extra) return { problem: 'unexpected here', at: extra.span };
  return { ...(times !== undefined ? { times } : {}), ...(withValue ? { with: withValue } : {}) };
}

/** A condition as written (`"$.a"`, `"{{ x > 1 }}"`, `{{ x > 1 }}`), or undefined for other values. */
function conditionText(value: Value): string | undefined {
  if (value.kind === 'string') return value.value;
  if (value.kind === 'braces') return `{{${value.text}}}`;
  if (value.kind === 'template') return value.parts.map((part) => (part.kind === 'text' ? part.value : `{{${part.text}}}`)).join('');
  return undefined;
}

function readExpectation(what: string, parts: readonly ExpectPart[], span: Span): ReadResult {
  const [head, ...rest] = parts;
  switch (what) {
    case 'output':
    case 'error': {
      const read = readMatch(parts);
      if ('problem' in read) return fail(read.problem, read.at);
      return { ok: true, value: { kind: what, match: read.match, value: read.value, span } };
    }
    case 'status': {
      const value = head?.kind === 'value' ? head.value : undefined;
      if (!head || value?.kind !== 'number' || !Number.isInteger(value.value) || value.value < 100 || value.value > 599) {
        return fail('expected an HTTP status from 100 to 599', head?.span);
      }
      if (rest[0]) return fail('unexpected after the status', rest[0].span);
      return { ok: true, value: { kind: 'status', status: value.value, statusSpan: head.span, span } };
    }
    case 'step': {
      if (head?.kind !== 'word') return fail('expected a step label', head?.span);
      const read = readMatch(rest);
      if ('problem' in read) return fail(read.problem, read.at ?? head.span);
      return { ok: true, value: { kind: 'step', label: head.text, labelSpan: head.span, match: read.match, value: read.value, span } };
    }
    case 'branch': {
      const name = head?.kind === 'word' ? head.text : head?.kind === 'value' ? conditionText(head.value) : undefined;
      if (!head || name === undefined) return fail('expected a condition as written, a branch name or `otherwise`', head?.span);
      if (rest[0]) return fail('unexpected after the branch', rest[0].span);
      return { ok: true, value: { kind: 'branch', branch: name, branchSpan: head.span, span } };
    }
    case 'published':
    case 'called': {
      const name = head?.kind === 'word' ? head.text : head?.kind === 'value' && head.value.kind === 'string' ? head.value.value : undefined;
      if (!head || name === undefined) return fail(what === 'published' ? 'expected an event name' : 'expected a step label', head?.span);
      const read = readCount(rest);
      if ('problem' in read) return fail(read.problem, read.at);
      const count = { ...(read.times !== undefined ? { times: read.times } : {}), ...(read.with ? { with: read.with } : {}) };
      return what === 'published'
        ? { ok: true, value: { kind: 'published', event: name, eventSpan: head.span, ...count, span } }
        : { ok: true, value: { kind: 'called', label: name, labelSpan: head.span, ...count, span } };
    }
    default:
      return fail('unknown expectation');
  }
}
