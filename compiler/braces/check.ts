/**
 * The Double Braces type checker: infers the type of every node of an expression against the
 * scope shapes of a `BracesEnv` and reports what can never work — unknown functions and names,
 * wrong arity, impossible argument and operand types, fields missing from closed shapes, paths
 * into non-objects, invalid literal patterns and literal division by zero. Anything touching
 * `unknown` is accepted, and after an error the node's type becomes `unknown` so one mistake is
 * reported once. In: an Expr (expr-ast.ts) + env. Out: the type, diagnostics, the resolved
 * function of each call (for the emitter) and the referenced paths (for "where" lines).
 * Lambdas (`x => …`, beyond Digibee) are checked only as the lambda arguments of array functions,
 * with their parameters typed from the array's element type.
 */
import type {
  BinaryExpr,
  CallExpr,
  Expr,
  IndexExpr,
  LambdaExpr,
  LambdaParam,
  MemberExpr,
  UnaryExpr,
} from './expr-ast.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { suggest } from '../../base/diagnostics/suggest.js';
import { joinSpans, type Span } from '../../base/source/span.js';
import {
  arrayOf,
  BOOLEAN,
  INTEGER,
  NULL,
  NUMBER,
  STRING,
  UNKNOWN,
  type FieldType,
  type PipeType,
  type SentBy,
} from '../types/pipe-type.js';
import {
  elementType,
  fits,
  isNullable,
  lookupField,
  typeOfValue,
  union,
  widen,
  withoutNull,
} from '../types/type-ops.js';
import { declassified, markSecret, secretFrom } from '../types/secret.js';
import { checkConstant } from './constant-args.js';
import { analyzeJsonPath } from '../types/jsonpath-type.js';
import { holdsObject, nearMiss } from '../types/near-miss.js';
import { literalOffsets, type QuotedLiteral } from '../types/literal-offsets.js';
import { literalNeverEquals } from '../types/enum-literal.js';
import { splitTailFunction } from '../../runtime/braces/json.js';
import type { BracesEnv } from './env.js';
import * as errors from './errors.js';
import { describeFound, withArticle } from './errors.js';
import {
  arity,
  FUNCTION_NAMES,
  findSignature,
  itemsOf,
  paramAt,
  resultType,
  type FunctionSignature,
  type LambdaSpec,
  type ParamSpec,
  CONDITION,
} from './signatures.js';

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
  /** Parameters of the lambdas being checked, innermost last. */
  private readonly lambdaScopes: Map<string, PipeType>[] = [];
  /** How many silent passes (see `silently`) enclose the current check. */
  private silentDepth = 0;
  /**
   * How many operands whose absence the expression handles enclose the current check (either
   * side of `??`, the arguments of ISNULL and DEFAULT): a near miss there may be a deliberate
   * alias, and a field no sender of the build sends may come from a sender the author expects.
   */
  private absenceHandled = 0;
  /** The literals compared with each path in this expression, and the PIPE4050 each one got. */
  private readonly comparisons: { path: string; literal: string | number | boolean; found?: Diagnostic }[] = [];

  /**
   * Drops the PIPE4050 of a literal that is another spelling of one the same path is also compared
   * with, and may equal (`status == "paid" || status == "PAID"`, `priority == 1 || priority == "1"`):
   * a defensive alternative, dead but harmless, not a typo.
   */
  dropSpellingAlternatives(): void {
    const spelling = (v: string | number | boolean): string => String(v).toLowerCase();
    for (const c of this.comparisons) {
      if (!c.found) continue;
      const alternative = this.comparisons.some(
        (o) => !o.found && o.path === c.path && o.literal !== c.literal && spelling(o.literal) === spelling(c.literal),
      );
      const at = alternative ? this.diagnostics.indexOf(c.found) : -1;
      if (at >= 0) this.diagnostics.splice(at, 1);
    }
  }
  /** Call and position of lambdas written as arguments (for the "not here" diagnostic). */
  private readonly argumentPosition = new Map<
    LambdaExpr,
    { readonly signature: FunctionSignature; readonly index: number }
  >();

  constructor(private readonly env: BracesEnv) {}

  /** The type of every node checked so far (operators read their operands' to pass secrets on). */
  private readonly types = new Map<Expr, PipeType>();

  private typeOf(expr: Expr): PipeType {
    return this.types.get(expr) ?? UNKNOWN;
  }

  type(expr: Expr): PipeType {
    const type = this.typeOfNode(expr);
    this.types.set(expr, type);
    return type;
  }

  private typeOfNode(expr: Expr): PipeType {
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
        return secretFrom(this.unary(expr), [this.typeOf(expr.operand)]);
      case 'binary':
        return secretFrom(this.binary(expr), [this.typeOf(expr.left), this.typeOf(expr.right)]);
      case 'array':
        return arrayOf(expr.items.length === 0 ? UNKNOWN : union(...expr.items.map((i) => widen(this.type(i)))));
      case 'object': {
        const fields: Record<string, PipeType> = Object.create(null) as Record<string, PipeType>;
        for (const entry of expr.entries) fields[entry.key] = widen(this.type(entry.value));
        return closedObject(fields);
      }
      case 'lambda':
        return this.misplacedLambda(expr);
    }
  }

  private record(expr: Expr, type: PipeType): PipeType {
    const path = pathText(expr);
    if (path !== undefined && path !== 'message' && !this.refs.has(path)) this.refs.set(path, type);
    return type;
  }

  private scope(name: string, span: Span): PipeType {
    // Parameters first: valid ones never share a scope's name, and an invalid one (already
    // reported) then types its own uses instead of cascading into the scope's shape.
    const param = this.lambdaParam(name);
    if (param !== undefined) return param;
    const env = this.env;
    switch (name) {
      case 'message':
        return env.message;
      case 'global':
        return closedObject(env.globals);
      case 'account':
        return accountScope(env.accounts);
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
        const visible = [...SCOPE_NAMES, ...this.lambdaScopes.flatMap((scope) => [...scope.keys()])];
        this.diagnostics.push(
          errors.unknownName({ span, name, isFunction, isGlobal, suggestion: suggest(name, visible) }),
        );
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
    const inner = expr.object;
    if (inner.kind === 'member' && inner.property === 'body' && expr.property !== '$') {
      // `message.body.orderId` where the message has no `body` but has `orderId` itself: an event's
      // payload (or another typed message) read as if it were a request envelope.
      const ownerType = this.type(inner.object);
      if (readAsEnvelope(ownerType, expr.property)) {
        const owner = pathText(inner.object) ?? 'this value';
        this.diagnostics.push(errors.bodyOfPayload({ span: inner.propertySpan, owner, field: expr.property }));
        return UNKNOWN;
      }
      const bodyType = this.field(inner.object, ownerType, 'body', inner.propertySpan);
      return this.field(inner, bodyType, expr.property, expr.propertySpan);
    }
    const objectType = this.type(inner);
    if (expr.property === '$') return objectType;
    return this.field(inner, objectType, expr.property, expr.propertySpan);
  }

  private field(object: Expr, objectType: PipeType, name: string, span: Span): PipeType {
    if (objectType.kind === 'unknown') return objectType.secret ? markSecret(UNKNOWN, objectType.secret) : UNKNOWN;
    const declared = this.absenceHandled > 0 ? undefined : nearMissOf(objectType, name);
    if (declared !== undefined) {
      const owner = pathText(object) ?? 'this value';
      const { fields } = declared.owner;
      this.diagnostics.push(errors.nearMissField({ span, field: name, declared: declared.name, owner, fields }));
      return UNKNOWN;
    }
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
      else if (object.name === 'account')
        this.diagnostics.push(errors.unknownAccount({ ...facts, account: undefined }));
      else if (object.name === 'step') this.diagnostics.push(errors.unknownStep(facts));
      else this.diagnostics.push(errors.unknownCapsuleParam(facts));
      return UNKNOWN;
    }
    if (object.kind === 'member' && object.object.kind === 'name' && object.object.name === 'account') {
      this.diagnostics.push(
        errors.unknownAccount({ span, name, candidates: lookup.candidates, suggestion, account: object.property }),
      );
      return UNKNOWN;
    }
    const owner = pathText(object) ?? 'this value';
    // A message closed by what its senders send (compiler/check/senders.ts): name them.
    const sentBy = sentByOf(objectType);
    if (sentBy) {
      // A defensive read (`message.cost ?? 0`) works whoever sends the event: it only shows the
      // author expects senders beyond this build's, so it is not called a mistake.
      if (this.absenceHandled > 0) return UNKNOWN;
      this.diagnostics.push(
        errors.unsentField({ span, field: name, owner, candidates: lookup.candidates, suggestion, sentBy }),
      );
      return UNKNOWN;
    }
    // A closed envelope (a request, a `rest` response) whose `body` may hold the field: a read that forgot `.body`.
    const body =
      objectType.kind === 'object' && Object.hasOwn(objectType.fields, 'body') ? objectType.fields['body'] : undefined;
    const inBody = suggestion === undefined && body !== undefined && lookupField(body.type, name).kind === 'found';
    this.diagnostics.push(
      errors.unknownField({
        span,
        field: name,
        owner,
        candidates: lookup.candidates,
        suggestion,
        ...(inBody ? { inBody: `${owner}.body.${name}` } : {}),
      }),
    );
    return UNKNOWN;
  }

  private index(expr: IndexExpr): PipeType {
    const objectType = this.type(expr.object);
    const indexType = this.type(expr.index);
    if (expr.index.kind === 'literal' && typeof expr.index.value === 'string')
      return this.field(expr.object, objectType, expr.index.value, expr.index.span);
    if (fits(indexType, union(NUMBER, STRING, NULL)) === 'no') {
      this.diagnostics.push(
        errors.badOperand({
          span: expr.index.span,
          message: `an index must be a number or a string, found ${describeFound(indexType)}`,
          label: `this is ${withArticle(describeFound(indexType))}`,
        }),
      );
      return UNKNOWN;
    }
    if (objectType.kind === 'unknown') return objectType.secret ? markSecret(UNKNOWN, objectType.secret) : UNKNOWN;
    const element = elementType(objectType);
    if (element !== undefined) return element;
    if (
      objectType.kind === 'object' ||
      (objectType.kind === 'union' && objectType.members.some((m) => m.kind === 'object'))
    ) {
      if (expr.index.kind === 'literal' && typeof expr.index.value === 'number')
        return this.field(expr.object, objectType, String(expr.index.value), expr.index.span);
      return UNKNOWN;
    }
    this.diagnostics.push(
      errors.notAnObject({
        span: expr.index.span,
        field: undefined,
        owner: pathText(expr.object),
        ownerType: objectType,
      }),
    );
    return UNKNOWN;
  }

  private call(expr: CallExpr): PipeType {
    const signature = findSignature(expr.name);
    if (!signature) {
      // Lambda bodies are still checked (parameters untyped); the unknown name is the one error.
      expr.args.forEach((a) => (a.kind === 'lambda' ? this.lambda(a, []) : this.type(a)));
      this.diagnostics.push(
        errors.unknownFunction({
          span: expr.nameSpan,
          name: expr.name,
          suggestion: suggest(expr.name.toUpperCase(), FUNCTION_NAMES),
        }),
      );
      return UNKNOWN;
    }
    this.calls.set(expr, signature);
    // Values first, lambdas after: a lambda's parameter types come from the array (and REDUCE's initial value).
    expr.args.forEach((a, i) => {
      if (a.kind === 'lambda') this.argumentPosition.set(a, { signature, index: i });
    });
    const handlesAbsence = signature.name === 'ISNULL' || signature.name === 'DEFAULT';
    if (handlesAbsence) this.absenceHandled++;
    let argTypes: PipeType[];
    try {
      argTypes = expr.args.map((a, i) =>
        a.kind === 'lambda' && paramAt(signature, i)?.lambda ? UNKNOWN : this.type(a),
      );
    } finally {
      if (handlesAbsence) this.absenceHandled--;
    }
    expr.args.forEach((a, i) => {
      const param = paramAt(signature, i);
      if (a.kind === 'lambda' && param?.lambda) argTypes[i] = this.lambdaArgument(signature, param, a, argTypes);
    });
    const { min, max } = arity(signature);
    const count = expr.args.length;
    const badSwitch = signature.name === 'SWITCHCASE' && count >= min && count % 2 === 0;
    if (count < min || count > max || badSwitch) {
      this.diagnostics.push(errors.wrongArity({ span: expr.span, signature, count, missingResult: badSwitch }));
      return callResult(signature, argTypes);
    }
    if (signature.name === 'EQUALTO' && expr.args[0] && expr.args[1])
      this.equality('EQUALTO', expr.args[0], argTypes[0] ?? UNKNOWN, expr.args[1], argTypes[1] ?? UNKNOWN);
    if (signature.name === 'SIZE') this.sizeArgument(signature, expr, argTypes[0] ?? UNKNOWN);
    const only = expr.args[0];
    if (signature.aggregate && count === 1 && only !== undefined && isArrayType(argTypes[0] ?? UNKNOWN)) {
      this.aggregateArray(signature, only, argTypes[0] ?? UNKNOWN);
      return callResult(signature, argTypes);
    }
    expr.args.forEach((arg, i) => {
      const param = paramAt(signature, i);
      if (!param) return;
      if (param.lambda) {
        if (arg.kind !== 'lambda')
          this.diagnostics.push(
            errors.lambdaExpected({ span: arg.span, signature, param, index: i, what: nameOf(arg) }),
          );
        return;
      }
      this.argument(signature, param, i, arg, argTypes[i] ?? UNKNOWN, argTypes[0] ?? UNKNOWN);
    });
    return callResult(signature, argTypes);
  }

  /**
   * `SIZE(x)` measures text, arrays and objects; anything else (null too) fails unless its flag is
   * `false`, so with no flag (or `true`) a value that is never one of those cannot work.
   */
  private sizeArgument(signature: FunctionSignature, expr: CallExpr, type: PipeType): void {
    const [value, flag] = expr.args;
    if (value === undefined || type.kind === 'null') return;
    if (flag !== undefined && !(flag.kind === 'literal' && flag.value === true)) return;
    if (fits(type, SIZED) !== 'no') return;
    const param = { name: paramAt(signature, 0)?.name ?? 'value', type: SIZED };
    this.diagnostics.push(
      errors.badArgument({ span: value.span, signature, param, index: 0, found: type, what: nameOf(value) }),
    );
  }

  /** `SUM(array)` & co.: the elements must be able to be numbers (COUNT takes anything). */
  private aggregateArray(signature: FunctionSignature, arg: Expr, type: PipeType): void {
    if (signature.name === 'COUNT') return;
    const items = itemsOf(withoutNull(type));
    if (items.kind !== 'null' && fits(items, union(NUMBER, STRING, NULL)) === 'no') {
      this.diagnostics.push(errors.badElements({ span: arg.span, signature, found: items, what: nameOf(arg) }));
    }
  }

  /**
   * Checks a lambda argument with its parameters typed from the array's elements; returns the
   * type of its body. REDUCE's accumulator starts as the initial value's type and is widened once
   * by what the body gives (a silent first pass), so `(acc, x) => acc + x.price` over `0` is a number.
   */
  private lambdaArgument(
    signature: FunctionSignature,
    param: ParamSpec,
    lambda: LambdaExpr,
    argTypes: readonly PipeType[],
  ): PipeType {
    const spec = param.lambda as LambdaSpec;
    if (lambda.params.length !== spec.params.length) {
      const span =
        lambda.params.length === 0
          ? lambda.arrowSpan
          : joinSpans(
              (lambda.params[0] as LambdaParam).span,
              (lambda.params[lambda.params.length - 1] as LambdaParam).span,
            );
      this.diagnostics.push(errors.lambdaArity({ span, signature, param, count: lambda.params.length }));
      // Which parameter is which is unclear: check the body untyped rather than cascade.
      this.lambda(lambda, []);
      return UNKNOWN;
    }
    const element = itemsOf(withoutNull(argTypes[0] ?? UNKNOWN));
    const initial = widen(argTypes[2] ?? UNKNOWN);
    const bind = (acc: PipeType): PipeType[] => spec.params.map((p) => (p === 'x' ? element : acc));
    let body: PipeType;
    // Inside a silent pass one pass is enough (its result is only a hint): nested REDUCEs then
    // cost quadratic, not exponential, time.
    if (spec.params.includes('acc') && this.silentDepth === 0) {
      const first = this.silently(() => this.lambda(lambda, bind(initial)));
      body = this.lambda(lambda, bind(initial.kind === 'null' ? UNKNOWN : union(initial, widen(first))));
    } else {
      body = this.lambda(lambda, bind(initial));
    }
    const checked = spec.returns === CONDITION ? withoutNull(body) : body;
    if (body.kind !== 'null' && fits(checked, spec.returns) === 'no') {
      this.diagnostics.push(errors.badLambdaResult({ span: lambda.body.span, signature, param, found: body }));
    }
    return body;
  }

  /** Runs a check whose diagnostics and new references are dropped. */
  private silently<T>(run: () => T): T {
    const diagnosticCount = this.diagnostics.length;
    const knownRefs = new Set(this.refs.keys());
    this.silentDepth++;
    let result: T;
    try {
      result = run();
    } finally {
      this.silentDepth--;
    }
    this.diagnostics.length = diagnosticCount;
    for (const key of [...this.refs.keys()]) if (!knownRefs.has(key)) this.refs.delete(key);
    return result;
  }

  /** Checks a lambda's parameter names, then its body with the parameters in scope. */
  private lambda(lambda: LambdaExpr, paramTypes: readonly PipeType[]): PipeType {
    const bindings = new Map<string, PipeType>();
    lambda.params.forEach((p, i) => {
      const problem = this.paramProblem(p.name, bindings);
      if (problem) this.diagnostics.push(errors.badLambdaParam({ span: p.span, name: p.name, problem }));
      if (!bindings.has(p.name)) bindings.set(p.name, paramTypes[i] ?? UNKNOWN);
    });
    this.lambdaScopes.push(bindings);
    try {
      return this.type(lambda.body);
    } finally {
      this.lambdaScopes.pop();
    }
  }

  private paramProblem(name: string, sameLambda: ReadonlyMap<string, PipeType>): errors.LambdaParamProblem | undefined {
    if ((SCOPE_NAMES as readonly string[]).includes(name)) return 'scope';
    if (name === 'true' || name === 'false' || name === 'null') return 'literal';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'reserved';
    if (sameLambda.has(name)) return 'duplicate';
    if (this.lambdaParam(name) !== undefined) return 'outer';
    return undefined;
  }

  /** The type of an enclosing lambda's parameter, innermost first. */
  private lambdaParam(name: string): PipeType | undefined {
    for (let i = this.lambdaScopes.length - 1; i >= 0; i--) {
      const type = this.lambdaScopes[i]?.get(name);
      if (type !== undefined) return type;
    }
    return undefined;
  }

  /** A lambda anywhere but as the lambda argument of an array function (its body is still checked). */
  private misplacedLambda(lambda: LambdaExpr): PipeType {
    this.diagnostics.push(errors.misplacedLambda({ span: lambda.span, where: this.argumentPosition.get(lambda) }));
    this.lambda(lambda, []);
    return UNKNOWN;
  }

  /** `first` is the type of the call's first argument (the value a JSONPATH path reads). */
  private argument(
    signature: FunctionSignature,
    param: ParamSpec,
    index: number,
    arg: Expr,
    type: PipeType,
    first: PipeType,
  ): void {
    const checked = WRONG_WHEN_PRESENT.has(signature.name) ? withoutNull(type) : type;
    if (type.kind !== 'null' && fits(checked, param.type) === 'no') {
      this.diagnostics.push(
        errors.badArgument({ span: arg.span, signature, param, index, found: type, what: nameOf(arg) }),
      );
      return;
    }
    if (arg.kind === 'literal' && param.constant === 'jsonpath' && typeof arg.value === 'string') {
      // JSONPATH parses a string value as JSON text (runtime/braces/json.ts): its shape is not known.
      const root = fits(first, STRING) === 'no' ? first : UNKNOWN;
      this.jsonPathArgument(signature, index, { span: arg.span, value: arg.value }, root);
      return;
    }
    if (
      arg.kind === 'literal' &&
      param.constant !== undefined &&
      (typeof arg.value === 'string' || (typeof arg.value === 'number' && param.constant !== 'numeric'))
    ) {
      const problem = checkConstant(param.constant, String(arg.value));
      if (problem) this.diagnostics.push(errors.badConstant({ span: arg.span, problem, signature, index }));
    }
    if ((signature.name === 'DIVIDE' || signature.name === 'MOD') && index === 1 && isZeroLiteral(arg)) {
      this.diagnostics.push(errors.divisionByZero({ span: arg.span, operator: signature.name }));
    }
  }

  /**
   * A JSONPath literal: parsed by the run time's parser, its fields and filter chains typed against
   * the value it reads (objects' filters test their members, as JSONPATH does at run time).
   */
  private jsonPathArgument(signature: FunctionSignature, index: number, literal: QuotedLiteral, root: PipeType): void {
    const problem = checkConstant('jsonpath', literal.value);
    const { path, fn } = splitTailFunction(literal.value);
    const lead = fn === undefined ? 0 : literal.value.length - literal.value.trimStart().length;
    const at = literalOffsets(literal);
    const analysis =
      problem === undefined || problem.message.includes('assigns')
        ? analyzeJsonPath(path, root, { objectFilter: 'members' })
        : undefined;
    if (analysis === undefined) {
      if (problem) this.diagnostics.push(errors.badConstant({ span: literal.span, problem, signature, index }));
      return;
    }
    for (const finding of analysis.findings) {
      const span = at(lead + finding.start, lead + finding.end);
      if (finding.kind === 'field') {
        this.diagnostics.push(errors.noSuchJsonPathField({ span, field: finding.field, owner: finding.owner }));
      } else if (finding.kind === 'near-miss') {
        const { field, declared, owner } = finding;
        const fields = owner.kind === 'object' ? owner.fields : {};
        this.diagnostics.push(errors.nearMissField({ span, field, declared, owner: undefined, fields }));
      } else if (finding.kind === 'enum') {
        const { chain: field, literal, operator, miss } = finding;
        this.diagnostics.push(errors.literalOutsideEnum({ span, field, literal, operator, ...miss }));
      } else if (problem) {
        const reported = finding.assignment ? { ...problem, hint: errors.COMPARE_WITH_EQUALS } : problem;
        const where = finding.assignment ? span : literal.span;
        this.diagnostics.push(errors.badConstant({ span: where, problem: reported, signature, index }));
      }
    }
  }

  private unary(expr: UnaryExpr): PipeType {
    const type = this.type(expr.operand);
    if (expr.op === '!') {
      this.requireCondition('!', expr.operand, type);
      return BOOLEAN;
    }
    if (type.kind !== 'null' && fits(type, NUMBER) === 'no') {
      this.diagnostics.push(
        errors.badOperand({
          span: expr.operand.span,
          message: `unary \`-\` needs a number, but ${nameOf(expr.operand)} is ${withArticle(describeFound(type))}`,
          label: `this is ${withArticle(describeFound(type))}`,
          hint: numberHint(type),
        }),
      );
      return UNKNOWN;
    }
    return withoutNull(type).kind === 'number' ? withoutNull(type) : NUMBER;
  }

  /**
   * Only `true` is true at run time (`isTrue`): a value that, when present, is never a boolean
   * makes the condition always false, missing or not (a string `"true"`, an object, a number).
   */
  private requireCondition(op: string, operand: Expr, type: PipeType): void {
    if (neverBoolean(type)) {
      // `a || b` with a value that is no boolean is JavaScript's "a, or else b": `??` says that here.
      const hint =
        op === '||'
          ? 'for a default when the value is missing write `a ?? b` (`||` gives true or false)'
          : conditionHint(pathText(operand) ?? '…', type);
      this.diagnostics.push(
        errors.badOperand({
          span: operand.span,
          message: `\`${op}\` needs a boolean, but ${nameOf(operand)} is ${withArticle(describeFound(type))}`,
          label: `this is ${withArticle(describeFound(type))}`,
          hint,
        }),
      );
    }
  }

  private binary(expr: BinaryExpr): PipeType {
    if (expr.op === '??') this.absenceHandled++;
    let left: PipeType;
    let right: PipeType;
    try {
      left = this.type(expr.left);
      right = this.type(expr.right);
    } finally {
      if (expr.op === '??') this.absenceHandled--;
    }
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
        this.equality(expr.op, expr.left, left, expr.right, right);
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

  /**
   * `field == literal` (either order, also `!=` and EQUALTO) where the field's shape allows only
   * other strings, or only scalars of another type: a comparison whose answer is known before any
   * message arrives (`==` is strict deep equality at run time).
   */
  private equality(operator: string, left: Expr, leftType: PipeType, right: Expr, rightType: PipeType): void {
    for (const [field, fieldType, literal] of [
      [left, leftType, right],
      [right, rightType, left],
    ] as const) {
      // A path, or a call whose result type the signature table gives (`SIZE(…) == "0"`).
      const path = pathText(field) ?? (field.kind === 'call' ? `${field.name.toUpperCase()}(…)` : undefined);
      if (path === undefined || literal.kind !== 'literal' || literal.value === null) continue;
      const never = literalNeverEquals(fieldType, literal.value);
      const facts = { span: literal.span, field: path, operator };
      const found =
        never?.kind === 'enum'
          ? errors.literalOutsideEnum({ ...facts, ...never, literal: String(literal.value) })
          : never?.kind === 'type'
            ? errors.literalOfOtherType({ ...facts, literal: literal.value, fieldType: never.fieldType })
            : undefined;
      if (found) this.diagnostics.push(found);
      this.comparisons.push({ path, literal: literal.value, ...(found ? { found } : {}) });
    }
    for (const [side, sideType, other, otherType] of [
      [left, leftType, right, rightType],
      [right, rightType, left, leftType],
    ] as const) {
      if (!structuredWhenPresent(sideType)) continue;
      // Deep equality: an object or array never equals a scalar; null equals null only.
      const scalarLiteral = other.kind === 'literal' && other.value !== null;
      const scalar =
        scalarLiteral || (scalarWhenPresent(otherType) && !(isNullable(sideType) && isNullable(otherType)));
      if (!scalar) continue;
      this.diagnostics.push(
        errors.structuredComparedToScalar({
          span: side.span,
          what: nameOf(side),
          found: sideType,
          operator,
          scalar: scalarLiteral ? nameOf(other) : `${nameOf(other)} (${withArticle(describeFound(otherType))})`,
          hint: scalarOfHint(side, sideType, 'compare'),
        }),
      );
      return;
    }
  }

  private ordering(expr: BinaryExpr, left: PipeType, right: PipeType): PipeType {
    // Null orders below everything, so `x < 5` works on a missing `x`; but a value that, when
    // present, is always an object, an array or a boolean can never be ordered (the run time fails).
    const orderable = union(NUMBER, STRING);
    for (const [side, t] of [
      [expr.left, left],
      [expr.right, right],
    ] as const) {
      if (t.kind !== 'null' && fits(withoutNull(t), orderable) === 'no') {
        this.diagnostics.push(
          errors.badOperand({
            span: side.span,
            message: `\`${expr.op}\` compares numbers or strings, but ${nameOf(side)} is ${withArticle(describeFound(t))}`,
            label: `this is ${withArticle(describeFound(t))}`,
            hint: scalarOfHint(side, t, 'compare'),
          }),
        );
        return BOOLEAN;
      }
    }
    const l = withoutNull(left);
    const r = withoutNull(right);
    if ((l.kind === 'number' && r.kind === 'string') || (l.kind === 'string' && r.kind === 'number')) {
      this.diagnostics.push(
        errors.badOperand({
          span: expr.opSpan,
          message: `\`${expr.op}\` cannot order ${nameOf(expr.left)} (${describeFound(l)}) and ${nameOf(expr.right)} (${describeFound(r)})`,
          label: 'a number and a string',
          hint: 'convert the text first: `TODOUBLE(…)`',
        }),
      );
    }
    return BOOLEAN;
  }

  private plus(expr: BinaryExpr, left: PipeType, right: PipeType): PipeType {
    const addable = union(NUMBER, STRING);
    for (const [side, t] of [
      [expr.left, left],
      [expr.right, right],
    ] as const) {
      if (t.kind !== 'null' && fits(t, addable) === 'no') {
        this.diagnostics.push(
          errors.badOperand({
            span: side.span,
            message: `\`+\` adds numbers or joins strings, but ${nameOf(side)} is ${withArticle(describeFound(t))}`,
            label: `this is ${withArticle(describeFound(t))}`,
            hint: 'to put a value into text use CONCAT(…) or a "text {{ … }}" template',
          }),
        );
        return UNKNOWN;
      }
    }
    const l = withoutNull(left);
    const r = withoutNull(right);
    if ((l.kind === 'number' && r.kind === 'string') || (l.kind === 'string' && r.kind === 'number')) {
      this.diagnostics.push(
        errors.badOperand({
          span: expr.opSpan,
          message: `\`+\` cannot join ${nameOf(expr.left)} (${describeFound(l)}) and ${nameOf(expr.right)} (${describeFound(r)})`,
          label: 'a number and a string',
          hint: 'join text with CONCAT(…), or convert the text with TODOUBLE(…) to add numbers',
        }),
      );
      return UNKNOWN;
    }
    if (l.kind === 'string' || r.kind === 'string') return STRING;
    if (l.kind === 'number' && r.kind === 'number') return l.integer && r.integer ? INTEGER : NUMBER;
    return union(NUMBER, STRING);
  }

  private arithmetic(expr: BinaryExpr, left: PipeType, right: PipeType): PipeType {
    for (const [side, t] of [
      [expr.left, left],
      [expr.right, right],
    ] as const) {
      if (t.kind !== 'null' && fits(t, NUMBER) === 'no') {
        this.diagnostics.push(
          errors.badOperand({
            span: side.span,
            message: `\`${expr.op}\` needs numbers, but ${nameOf(side)} is ${withArticle(describeFound(t))}`,
            label: `this is ${withArticle(describeFound(t))}`,
            hint: numberHint(t),
          }),
        );
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

/**
 * The type of a call: a result computed from a secret is a secret (`CONCAT("Bearer ",
 * account.crm.token)`, `SIZE(…)`, `TOSTRING(message)` when the message holds one), except what
 * `DECLASSIFY(…)` gives. Functions whose result type follows from their arguments' types pick or
 * pass values on (IF, FIRSTELEMENT, MAP, FILTER…): what they pick carries its marks in the result's
 * type already, so only a secret as a whole decides (a condition, an index, a lambda's body):
 * `FIRSTELEMENT(message.items).id` is not secret because `.key` beside it is.
 */
function callResult(signature: FunctionSignature, argTypes: readonly PipeType[]): PipeType {
  const result = resultType(signature, argTypes);
  if (signature.name === DECLASSIFY) return declassified(result);
  if (typeof signature.result !== 'function') return secretFrom(result, argTypes);
  return secretFrom(
    result,
    argTypes.filter((t) => t.secret !== undefined),
  );
}

/** The one function that lets a secret leave (docs/security.md): its argument, no longer secret. */
export const DECLASSIFY = 'DECLASSIFY';

/** `account`: every declared account, each secret as a whole (so are its fields, read through it). */
function accountScope(accounts: Readonly<Record<string, PipeType>>): PipeType {
  const marked: Record<string, PipeType> = Object.create(null) as Record<string, PipeType>;
  for (const name of Object.keys(accounts)) {
    const account = accounts[name] as PipeType;
    const from = `account.${name}`;
    if (account.kind !== 'object') {
      marked[name] = markSecret(account, { from });
      continue;
    }
    const fields: Record<string, FieldType> = Object.create(null) as Record<string, FieldType>;
    for (const key of Object.keys(account.fields)) {
      const field = account.fields[key] as FieldType;
      fields[key] = { ...field, type: markSecret(field.type, { from: `${from}.${key}` }) };
    }
    marked[name] = markSecret({ ...account, fields }, { from });
  }
  return closedObject(marked);
}

/** What SIZE measures: text, arrays and objects. */
const SIZED: PipeType = union(STRING, arrayOf(UNKNOWN), { kind: 'object', fields: {}, open: true });

/** Known to be an array (possibly null): `SUM(x)` then folds the elements. */
function isArrayType(t: PipeType): boolean {
  const present = withoutNull(t);
  return present.kind === 'array' || (present.kind === 'union' && present.members.every((m) => m.kind === 'array'));
}

/**
 * How to reach a scalar inside a value that is always an object or an array (when present):
 * one of its number or string fields, or its size.
 * @example scalarOfHint(`step.entry`, { attempt: integer, … }, 'compare') // "compare one of its fields, e.g. `step.entry.attempt`"
 */
function scalarOfHint(expr: Expr, type: PipeType, verb: string): string | undefined {
  const present = withoutNull(type);
  const path = pathText(expr);
  if (present.kind === 'array') return `${verb} its size, \`SIZE(${path ?? '…'})\`, or one of its elements`;
  if (present.kind !== 'object') return undefined;
  const scalar = Object.keys(present.fields).find((key) => {
    const field = present.fields[key] as FieldType;
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && fits(withoutNull(field.type), union(NUMBER, STRING)) === 'yes';
  });
  if (path === undefined) return `${verb} one of its fields`;
  return scalar === undefined
    ? `${verb} one of its fields: \`${path}.<field>\``
    : `${verb} one of its fields, e.g. \`${path}.${scalar}\``;
}

/**
 * Functions that take null as an argument but nothing else of a wrong type: an argument that is of
 * a wrong type whenever it is present never works. IF and SWITCHCASE run as short-circuits over
 * `isTrue` and AND, OR, NOT, XOR test `=== true` (only `true` is true); GREATERTHAN & co. order
 * null below everything and fail on objects, arrays and booleans. (Optional flags of other
 * functions may read other values as their default, so they keep the plain check.)
 */
const WRONG_WHEN_PRESENT: ReadonlySet<string> = new Set([
  'IF',
  'SWITCHCASE',
  'AND',
  'OR',
  'NOT',
  'XOR',
  'GREATERTHAN',
  'GREATERTHANEQUAL',
  'LESSTHAN',
  'LESSTHANEQUAL',
]);

/** A value that, when present, is certainly not a boolean: as a condition it is always false. */
export function neverBoolean(type: PipeType): boolean {
  return type.kind !== 'null' && fits(withoutNull(type), BOOLEAN) === 'no';
}

/** How to turn a non-boolean into the condition it most likely meant. */
export function conditionHint(path: string, type: PipeType): string {
  const present = withoutNull(type);
  if (fits(present, STRING) !== 'no') return 'to read text such as "true", wrap it: `TOBOOLEAN(…)`';
  if (fits(present, NUMBER) !== 'no') return 'compare the number, e.g. `x > 0`';
  if (present.kind === 'object' || present.kind === 'array')
    return `only \`true\` is true: to test that it is there write \`!ISNULL(${path})\``;
  return 'use `??` to supply a default for a missing value';
}

/** A value that, when present, is always an object or an array. */
function structuredWhenPresent(type: PipeType): boolean {
  const present = withoutNull(type);
  if (type.kind === 'null' || present.kind === 'unknown') return false;
  const members = present.kind === 'union' ? present.members : [present];
  return members.every((m) => m.kind === 'object' || m.kind === 'array');
}

/** A value that, when present, is always a string, a number or a boolean. */
function scalarWhenPresent(type: PipeType): boolean {
  const present = withoutNull(type);
  if (type.kind === 'null' || present.kind === 'unknown') return false;
  const members = present.kind === 'union' ? present.members : [present];
  return members.every((m) => m.kind === 'string' || m.kind === 'number' || m.kind === 'boolean');
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
  checker.dropSpellingAlternatives();
  return { type, diagnostics: checker.diagnostics, calls: checker.calls, refs: checker.refs };
}

/**
 * True when `owner.body.<field>` reads an object that declares `field` itself and no `body`: the
 * data is at the top, not under an envelope's `body` (an open object could hold an undeclared
 * `body` with a field of the same name as a declared one, which no message does on purpose).
 */
function readAsEnvelope(owner: PipeType, field: string): boolean {
  return owner.kind === 'object' && !Object.hasOwn(owner.fields, 'body') && Object.hasOwn(owner.fields, field);
}

/**
 * The declared name a read of `name` is a near miss of (near-miss.ts), when the value is one open
 * object (or null) that does not declare `name` and whose other fields are not named elsewhere.
 */
function nearMissOf(
  type: PipeType,
  name: string,
): { name: string; owner: Extract<PipeType, { kind: 'object' }> } | undefined {
  const plain = withoutNull(type);
  if (plain.kind !== 'object' || !plain.open || plain.freeNames || Object.hasOwn(plain.fields, name)) return undefined;
  const declared = nearMiss(name, Object.keys(plain.fields), (key) => holdsObject(plain.fields[key]?.type));
  return declared === undefined ? undefined : { name: declared, owner: plain };
}

/** The senders that closed an object (or an object that may be null), when they did. */
function sentByOf(t: PipeType): SentBy | undefined {
  if (t.kind === 'object') return t.sentBy;
  if (t.kind !== 'union') return undefined;
  const objects = t.members.filter((m) => m.kind !== 'null');
  const only = objects.length === 1 ? objects[0] : undefined;
  return only?.kind === 'object' ? only.sentBy : undefined;
}
