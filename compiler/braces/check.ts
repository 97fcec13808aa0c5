/**
 * The Double Braces type checker: infers the type of every node of an expression against the
 * scope shapes of a `BracesEnv` and reports what can never work — unknown functions and names,
 * wrong arity, impossible argument and operand types, fields missing from closed shapes, paths
 * into non-objects, invalid literal patterns and literal division by zero. Anything touching
 * `unknown` is accepted, and after an error the node's type becomes `unknown` so one mistake is
 * reported once. In: an Expr (grammar/braces) + env. Out: the type, diagnostics, the resolved
 * function of each call (for the emitter) and the referenced paths (for "where" lines).
 */
import type { BinaryExpr, CallExpr, Expr, IndexExpr, MemberExpr, UnaryExpr } from '../../grammar/braces/expr-ast.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { suggest } from '../diagnostics/suggest.js';
import type { Span } from '../source/span.js';
import { arrayOf, BOOLEAN, INTEGER, NULL, NUMBER, STRING, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';
import { elementType, fits, lookupField, typeOfValue, union, widen, withoutNull } from '../types/type-ops.js';
import { checkConstant } from './constant-args.js';
import type { BracesEnv } from './env.js';
import * as errors from './errors.js';
import { describeFound, withArticle } from './errors.js';
import { arity, FUNCTION_NAMES, findSignature, paramAt, resultType, type FunctionSignature, type ParamSpec } from './signatures.js';

export const SCOPE_NAMES = ['message', 'global', 'account', 'metadata', 'step', 'item', 'capsule'] as const;

/** `metadata.…`: what the run time's ExecutionMetadata provides. */
export const METADATA_TYPE: PipeType = closedObject({
  pipeline: closedObject({ name: STRING }),
  execution: closedObject({ key: STRING, startTimestamp: INTEGER, timeout: INTEGER, redelivery: BOOLEAN }),
});

function closedObject(fields: Readonly<Record<string, PipeType>>): PipeType {
  const out: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
  for (const key of Object.keys(fields)) out[key] = { type: fields[key] as PipeType, required: true };
  return { kind: 'object', fields: out, open: false };
}

export interface CheckResult {
  readonly type: PipeType;
  readonly diagnostics: readonly Diagnostic[];
  /** Resolved signature of every call node. */
  readonly calls: ReadonlyMap<CallExpr, FunctionSignature>;
  /** Paths referenced, as written, with their types (first occurrence order). */
  readonly refs: ReadonlyMap<string, PipeType>;
}

/** `message.body.total`, `message.items[0]`, `global.read-timeout` — or undefined for computed values. */
export function pathText(expr: Expr): string | undefined {
  switch (expr.kind) {
    case 'name':
      return expr.name;
    case 'member': {
      const base = pathText(expr.object);
      return base === undefined ? undefined : `${base}.${expr.property}`;
    }
    case 'index': {
      const base = pathText(expr.object);
      if (base === undefined || expr.index.kind !== 'literal') return undefined;
      return `${base}[${JSON.stringify(expr.index.value)}]`;
    }
    default:
      return undefined;
  }
}

/** Short text naming an expression in messages: its path, `NAME(…)`, or "this value". */
export function nameOf(expr: Expr): string {
  const path = pathText(expr);
  if (path !== undefined) return `\`${path}\``;
  if (expr.kind === 'call') return `\`${expr.name.toUpperCase()}(…)\``;
  if (expr.kind === 'literal') {
    const text = JSON.stringify(expr.value);
    return text.length <= 24 ? `\`${text}\`` : 'this literal';
  }
  return 'this value';
}

class Checker {
  readonly diagnostics: Diagnostic[] = [];
  readonly calls = new Map<CallExpr, FunctionSignature>();
  readonly refs = new Map<string, PipeType>();

  constructor(private readonly env: BracesEnv) {}

  type(expr: Expr): PipeType {
    switch (expr.kind) {
      case 'literal':
        return typeOfValue(expr.value);
      case 'name':
        return this.record(expr, this.scope(expr.name, expr.span));
      case 'member':
        return this.record(expr, this.member(expr));
      case 'index':
        return this.record(expr, this.index(expr));
      case 'call':
        return this.call(expr);
      case 'unary':
        return this.unary(expr);
      case 'binary':
        return this.binary(expr);
      case 'array':
        return arrayOf(expr.items.length === 0 ? UNKNOWN : union(...expr.items.map((i) => widen(this.type(i)))));
      case 'object': {
        const fields: Record<string, PipeType> = Object.create(null) as Record<string, PipeType>;
        for (const entry of expr.entries) fields[entry.key] = widen(this.type(entry.value));
        return closedObject(fields);
      }
    }
  }

  private record(expr: Expr, type: PipeType): PipeType {
    const path = pathText(expr);
    if (path !== undefined && path !== 'message' && !this.refs.has(path)) this.refs.set(path, type);
    return type;
  }

  private scope(name: string, span: Span): PipeType {
    const env = this.env;
    switch (name) {
      case 'message':
        return env.message;
      case 'global':
        return closedObject(env.globals);
      case 'account':
        return closedObject(env.accounts);
      case 'step':
        return closedObject(env.steps);
      case 'metadata':
        return METADATA_TYPE;
      case 'item':
        if (env.item === undefined) {
          this.diagnostics.push(errors.itemOutsideTransformer(span));
          return UNKNOWN;
        }
        return env.item;
      case 'capsule':
        if (env.capsule === undefined) {
          this.diagnostics.push(errors.unknownCapsuleParam({ span, name: undefined, candidates: [] }));
          return UNKNOWN;
        }
        return closedObject(env.capsule);
      default: {
        const isFunction = findSignature(name) !== undefined;
        const isGlobal = Object.prototype.hasOwnProperty.call(env.globals, name);
        this.diagnostics.push(errors.unknownName({ span, name, isFunction, isGlobal, suggestion: suggest(name, SCOPE_NAMES) }));
        return UNKNOWN;
      }
    }
  }

  /** Names of a scope record, for did-you-mean. */
  private scopeRecord(root: string): Readonly<Record<string, PipeType>> | undefined {
    switch (root) {
      case 'global':
        return this.env.globals;
      case 'account':
        return this.env.accounts;
      case 'step':
        return this.env.steps;
      case 'capsule':
        return this.env.capsule;
      default:
        return undefined;
    }
  }

  private member(expr: MemberExpr): PipeType {
    const objectType = this.type(expr.object);
    if (expr.property === '$') return objectType;
    return this.field(expr.object, objectType, expr.property, expr.propertySpan);
  }

  private field(object: Expr, objectType: PipeType, name: string, span: Span): PipeType {
    if (objectType.kind === 'unknown') return UNKNOWN;
    const lookup = lookupField(objectType, name);
    if (lookup.kind === 'found') return lookup.type;
    if (lookup.kind === 'not-object') {
      this.diagnostics.push(errors.notAnObject({ span, field: name, owner: pathText(object), ownerType: objectType }));
      return UNKNOWN;
    }
    const suggestion = suggest(name, lookup.candidates);
    // Scope roots have their own codes (unknown global / account / step / capsule parameter).
    if (object.kind === 'name' && this.scopeRecord(object.name) !== undefined) {
      const candidates = Object.keys(this.scopeRecord(object.name) ?? {}).sort();
      const facts = { span, name, candidates, suggestion };
      if (object.name === 'global') this.diagnostics.push(errors.unknownGlobal(facts));
      else if (object.name === 'account') this.diagnostics.push(errors.unknownAccount({ ...facts, account: undefined }));
      else if (object.name === 'step') this.diagnostics.push(errors.unknownStep(facts));
      else this.diagnostics.push(errors.unknownCapsuleParam(facts));
      return UNKNOWN;
    }
    if (object.kind === 'member' && object.object.kind === 'name' && object.object.name === 'account') {
      this.diagnostics.push(errors.unknownAccount({ span, name, candidates: lookup.candidates, suggestion, account: object.property }));
      return UNKNOWN;
    }
    this.diagnostics.push(errors.unknownField({ span, field: name, owner: pathText(object) ?? 'this value', candidates: lookup.candidates, suggestion }));
    return UNKNOWN;
  }

  private index(expr: IndexExpr): PipeType {
    const objectType = this.type(expr.object);
    const indexType = this.type(expr.index);
    if (expr.index.kind === 'literal' && typeof expr.index.value === 'string') return this.field(expr.object, objectType, expr.index.value, expr.index.span);
    if (fits(indexType, union(NUMBER, STRING, NULL)) === 'no') {
      this.diagnostics.push(errors.badOperand({ span: expr.index.span, message: `an index must be a number or a string, found ${describeFound(indexType)}`, label: `this is ${withArticle(describeFound(indexType))}` }));
      return UNKNOWN;
    }
    if (objectType.kind === 'unknown') return UNKNOWN;
    const element = elementType(objectType);
    if (element !== undefined) return element;
    if (objectType.kind === 'object' || (objectType.kind === 'union' && objectType.members.some((m) => m.kind === 'object'))) {
      if (expr.index.kind === 'literal' && typeof expr.index.value === 'number') return this.field(expr.object, objectType, String(expr.index.value), expr.index.span);
      return UNKNOWN;
    }
    this.diagnostics.push(errors.notAnObject({ span: expr.index.span, field: undefined, owner: pathText(expr.object), ownerType: objectType }));
    return UNKNOWN;
  }

  private call(expr: CallExpr): PipeType {
    const signature = findSignature(expr.name);
    const argTypes = expr.args.map((a) => this.type(a));
    if (!signature) {
      this.diagnostics.push(errors.unknownFunction({ span: expr.nameSpan, name: expr.name, suggestion: suggest(expr.name.toUpperCase(), FUNCTION_NAMES) }));
      return UNKNOWN;
    }
    this.calls.set(expr, signature);
    const { min, max } = arity(signature);
    const count = expr.args.length;
    const badSwitch = signature.name === 'SWITCHCASE' && count >= min && count % 2 === 0;
    if (count < min || count > max || badSwitch) {
      this.diagnostics.push(errors.wrongArity({ span: expr.span, signature, count, missingResult: badSwitch }));
      return resultType(signature, argTypes);
    }
    expr.args.forEach((arg, i) => {
      const param = paramAt(signature, i);
      if (param) this.argument(signature, param, i, arg, argTypes[i] ?? UNKNOWN);
    });
    return resultType(signature, argTypes);
  }

  private argument(signature: FunctionSignature, param: ParamSpec, index: number, arg: Expr, type: PipeType): void {
    if (type.kind !== 'null' && fits(type, param.type) === 'no') {
      this.diagnostics.push(errors.badArgument({ span: arg.span, signature, param, index, found: type, what: nameOf(arg) }));
      return;
    }
    if (arg.kind === 'literal' && param.constant !== undefined && (typeof arg.value === 'string' || (typeof arg.value === 'number' && param.constant !== 'numeric'))) {
      const problem = checkConstant(param.constant, String(arg.value));
      if (problem) this.diagnostics.push(errors.badConstant({ span: arg.span, problem, signature, index }));
    }
    if ((signature.name === 'DIVIDE' || signature.name === 'MOD') && index === 1 && isZeroLiteral(arg)) {
      this.diagnostics.push(errors.divisionByZero({ span: arg.span, operator: signature.name }));
    }
  }

  private unary(expr: UnaryExpr): PipeType {
    const type = this.type(expr.operand);
    if (expr.op === '!') {
      this.requireCondition('!', expr.operand, type);
      return BOOLEAN;
    }
    if (type.kind !== 'null' && fits(type, NUMBER) === 'no') {
      this.diagnostics.push(errors.badOperand({ span: expr.operand.span, message: `unary \`-\` needs a number, but ${nameOf(expr.operand)} is ${withArticle(describeFound(type))}`, label: `this is ${withArticle(describeFound(type))}`, hint: numberHint(type) }));
      return UNKNOWN;
    }
    return withoutNull(type).kind === 'number' ? withoutNull(type) : NUMBER;
  }

  private requireCondition(op: string, operand: Expr, type: PipeType): void {
    if (fits(type, union(BOOLEAN, NULL)) === 'no') {
      const hint = fits(type, STRING) !== 'no' ? 'to read text such as "true", wrap it: `TOBOOLEAN(…)`' : fits(type, NUMBER) !== 'no' ? 'compare the number, e.g. `x > 0`' : 'use `??` to supply a default for a missing value';
      this.diagnostics.push(errors.badOperand({ span: operand.span, message: `\`${op}\` needs a boolean, but ${nameOf(operand)} is ${withArticle(describeFound(type))}`, label: `this is ${withArticle(describeFound(type))}`, hint }));
    }
  }

  private binary(expr: BinaryExpr): PipeType {
    const left = this.type(expr.left);
    const right = this.type(expr.right);
    switch (expr.op) {
      case '&&':
      case '||':
        this.requireCondition(expr.op, expr.left, left);
        this.requireCondition(expr.op, expr.right, right);
        return BOOLEAN;
      case '??':
        return union(withoutNull(left), right);
      case '==':
      case '!=':
        return BOOLEAN;
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.ordering(expr, left, right);
      case '+':
        return this.plus(expr, left, right);
      default:
        return this.arithmetic(expr, left, right);
    }
  }

  private ordering(expr: BinaryExpr, left: PipeType, right: PipeType): PipeType {
    const orderable = union(NUMBER, STRING, NULL);
    for (const [side, t] of [[expr.left, left], [expr.right, right]] as const) {
      if (fits(t, orderable) === 'no') {
        this.diagnostics.push(errors.badOperand({ span: side.span, message: `\`${expr.op}\` compares numbers or strings, but ${nameOf(side)} is ${withArticle(describeFound(t))}`, label: `this is ${withArticle(describeFound(t))}` }));
        return BOOLEAN;
      }
    }
    const l = withoutNull(left);
    const r = withoutNull(right);
    if ((l.kind === 'number' && r.kind === 'string') || (l.kind === 'string' && r.kind === 'number')) {
      this.diagnostics.push(errors.badOperand({ span: expr.opSpan, message: `\`${expr.op}\` cannot order ${nameOf(expr.left)} (${describeFound(l)}) and ${nameOf(expr.right)} (${describeFound(r)})`, label: 'a number and a string', hint: 'convert the text first: `TODOUBLE(…)`' }));
    }
    return BOOLEAN;
  }

  private plus(expr: BinaryExpr, left: PipeType, right: PipeType): PipeType {
    const addable = union(NUMBER, STRING);
    for (const [side, t] of [[expr.left, left], [expr.right, right]] as const) {
      if (t.kind !== 'null' && fits(t, addable) === 'no') {
        this.diagnostics.push(errors.badOperand({ span: side.span, message: `\`+\` adds numbers or joins strings, but ${nameOf(side)} is ${withArticle(describeFound(t))}`, label: `this is ${withArticle(describeFound(t))}`, hint: 'to put a value into text use CONCAT(…) or a "text {{ … }}" template' }));
        return UNKNOWN;
      }
    }
    const l = withoutNull(left);
    const r = withoutNull(right);
    if ((l.kind === 'number' && r.kind === 'string') || (l.kind === 'string' && r.kind === 'number')) {
      this.diagnostics.push(errors.badOperand({ span: expr.opSpan, message: `\`+\` cannot join ${nameOf(expr.left)} (${describeFound(l)}) and ${nameOf(expr.right)} (${describeFound(r)})`, label: 'a number and a string', hint: 'join text with CONCAT(…), or convert the text with TODOUBLE(…) to add numbers' }));
      return UNKNOWN;
    }
    if (l.kind === 'string' || r.kind === 'string') return STRING;
    if (l.kind === 'number' && r.kind === 'number') return l.integer && r.integer ? INTEGER : NUMBER;
    return union(NUMBER, STRING);
  }

  private arithmetic(expr: BinaryExpr, left: PipeType, right: PipeType): PipeType {
    for (const [side, t] of [[expr.left, left], [expr.right, right]] as const) {
      if (t.kind !== 'null' && fits(t, NUMBER) === 'no') {
        this.diagnostics.push(errors.badOperand({ span: side.span, message: `\`${expr.op}\` needs numbers, but ${nameOf(side)} is ${withArticle(describeFound(t))}`, label: `this is ${withArticle(describeFound(t))}`, hint: numberHint(t) }));
        return UNKNOWN;
      }
    }
    if ((expr.op === '/' || expr.op === '%') && isZeroLiteral(expr.right)) {
      this.diagnostics.push(errors.divisionByZero({ span: expr.right.span, operator: expr.op }));
    }
    const l = withoutNull(left);
    const r = withoutNull(right);
    if (expr.op !== '/' && l.kind === 'number' && r.kind === 'number' && l.integer && r.integer) return INTEGER;
    return NUMBER;
  }
}

function isZeroLiteral(expr: Expr): boolean {
  return expr.kind === 'literal' && (expr.value === 0 || expr.value === '0');
}

function numberHint(t: PipeType): string | undefined {
  return fits(t, STRING) !== 'no' ? 'to turn text into a number, wrap it: `TODOUBLE(…)`' : undefined;
}

/** Type-checks one parsed expression. */
export function checkExpression(expr: Expr, env: BracesEnv): CheckResult {
  const checker = new Checker(env);
  const type = checker.type(expr);
  return { type, diagnostics: checker.diagnostics, calls: checker.calls, refs: checker.refs };
}
