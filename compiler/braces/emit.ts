/**
 * The Double Braces emitter: a checked expression tree → ONE readable JavaScript expression over
 * the run-time library `B`. Paths become own-property-safe reads (`B.field(B.field(message, "body"), "total")`, `B.get(message, "lines", 0)`),
 * functions become `B.NAME(…)` (`B.NOW(ctx)` when the context is needed), and the conditional
 * forms are lazy JavaScript: IF / SWITCHCASE → `?:`, `&&` / `||` → short-circuits, `??` → `??`.
 * Identifiers assumed in scope: `B`, `message`, `ctx`, and `item` / `capsule` where they exist.
 * Lambda arguments become JavaScript arrow functions, the only closures in generated code; their
 * parameters are written `$name` so they can never collide with those identifiers or with
 * JavaScript keywords: `MAP(message.lines, l => l.qty)` → `B.MAP(B.field(message, "lines"), ($l) => B.field($l, "qty"))`.
 */
import type { CallExpr, Expr } from './expr-ast.js';
import type { FunctionSignature } from './signatures.js';

const SCOPE_JS: Readonly<Record<string, string>> = {
  message: 'message',
  global: 'ctx.globals',
  account: 'ctx.accounts',
  step: 'ctx.steps',
  metadata: 'ctx.metadata',
  item: 'item',
  capsule: 'capsule',
};

const ARITHMETIC = new Set(['-', '*', '/', '%']);
const ORDERING: Readonly<Record<string, string>> = { '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' };

/** The JavaScript name of a lambda parameter (user names are `[A-Za-z_][A-Za-z0-9_]*`). */
function paramJs(name: string): string {
  return `$${name}`;
}

export class Emitter {
  /** Parameters of the enclosing lambdas (the checker has rejected any other bare name). */
  private readonly params = new Set<string>();

  constructor(private readonly calls: ReadonlyMap<CallExpr, FunctionSignature>) {}

  emit(expr: Expr): string {
    switch (expr.kind) {
      case 'literal':
        return literal(expr.value);
      case 'name':
        if (Object.prototype.hasOwnProperty.call(SCOPE_JS, expr.name)) return SCOPE_JS[expr.name] as string;
        return this.params.has(expr.name) ? paramJs(expr.name) : 'null';
      case 'member':
      case 'index':
        return this.path(expr);
      case 'call':
        return this.call(expr);
      case 'unary':
        if (expr.op === '!') return `!B.isTrue(${this.emit(expr.operand)})`;
        if (expr.operand.kind === 'literal' && typeof expr.operand.value === 'number')
          return literal(-expr.operand.value);
        return `B.neg(${this.emit(expr.operand)})`;
      case 'binary':
        return this.binary(expr.op, this.emit(expr.left), this.emit(expr.right));
      case 'array':
        return `[${expr.items.map((i) => this.emit(i)).join(', ')}]`;
      case 'object': {
        const entries = expr.entries.map((e) => [JSON.stringify(e.key), this.emit(e.value)] as const);
        // A literal `__proto__` key would set the prototype: build such objects with B.obj.
        if (expr.entries.some((e) => e.key === '__proto__'))
          return `B.obj(${entries.map(([k, v]) => `[${k}, ${v}]`).join(', ')})`;
        return entries.length === 0 ? '({})' : `({ ${entries.map(([k, v]) => `${k}: ${v}`).join(', ')} })`;
      }
      case 'lambda': {
        const added = expr.params.map((p) => p.name).filter((name) => !this.params.has(name));
        added.forEach((name) => this.params.add(name));
        const body = this.emit(expr.body);
        added.forEach((name) => this.params.delete(name));
        return `(${expr.params.map((p) => paramJs(p.name)).join(', ')}) => ${body}`;
      }
    }
  }

  /**
   * Flattens `a.b[0].c` into `B.get(a, "b", 0, "c")`; `.$` is the value itself. A read of field
   * names only becomes nested `B.field` calls (`B.field(B.field(a, "b"), "c")`): small enough for
   * V8 to inline at each site, where the property load then sees one object shape, not all of them.
   */
  private path(expr: Expr): string {
    const segments: { readonly js: string; readonly field?: string }[] = [];
    let current = expr;
    while (current.kind === 'member' || current.kind === 'index') {
      if (current.kind === 'member') {
        if (current.property !== '$')
          segments.unshift({ js: JSON.stringify(current.property), field: current.property });
      } else {
        segments.unshift({ js: this.emit(current.index), field: undefined });
      }
      current = current.object;
    }
    const root = this.emit(current);
    if (segments.length === 0) return root;
    if (!segments.every((s) => s.field !== undefined)) return `B.get(${root}, ${segments.map((s) => s.js).join(', ')})`;
    // Inside the chain a missing field may stay undefined (B.fields and B.field take it as null);
    // only the value of the whole path becomes null.
    const last = segments.length - 1;
    return segments.reduce((target, s, i) => {
      const name = s.field as string;
      if (!readsDirectly(name)) return `B.field(${target}, ${s.js})`;
      const read = `B.fields(${target})${propertyAccess(name)}`;
      return i === last ? `(${read} ?? null)` : read;
    }, root);
  }

  private call(expr: CallExpr): string {
    const signature = this.calls.get(expr);
    const name = signature?.name ?? expr.name.toUpperCase();
    const mapped = name === 'SUM' && expr.args.length === 1 ? this.mapCall(expr.args[0]) : undefined;
    // SUM(MAP(list, l => …)), the usual total: one pass without the list in between (B.SUM_MAP).
    if (mapped) return `B.SUM_MAP(${mapped.args.map((a) => this.emit(a)).join(', ')})`;
    const args = expr.args.map((a) => this.emit(a));
    if (name === 'IF' && args.length === 3) return `(B.isTrue(${args[0]}) ? ${args[1]} : ${args[2]})`;
    if (name === 'SWITCHCASE' && args.length >= 3 && args.length % 2 === 1) {
      let out = args[0] as string;
      for (let i = args.length - 2; i >= 1; i -= 2) out = `B.isTrue(${args[i]}) ? ${args[i + 1]} : ${out}`;
      return `(${out})`;
    }
    const all = signature?.needsContext ? ['ctx', ...args] : args;
    return `B.${name}(${all.join(', ')})`;
  }

  /** `expr` when it is a call of MAP with its two arguments (array, lambda). */
  private mapCall(expr: Expr | undefined): CallExpr | undefined {
    if (expr?.kind !== 'call' || expr.args.length !== 2 || expr.args[1]?.kind !== 'lambda') return undefined;
    return (this.calls.get(expr)?.name ?? expr.name.toUpperCase()) === 'MAP' ? expr : undefined;
  }

  private binary(op: string, left: string, right: string): string {
    if (op === '+') return `B.add(${left}, ${right})`;
    if (ARITHMETIC.has(op)) return `B.arith(${JSON.stringify(op)}, ${left}, ${right})`;
    if (op === '==') return `B.eq(${left}, ${right})`;
    if (op === '!=') return `!B.eq(${left}, ${right})`;
    if (op === '&&') return `(B.isTrue(${left}) && B.isTrue(${right}))`;
    if (op === '||') return `(B.isTrue(${left}) || B.isTrue(${right}))`;
    if (op === '??') return `(${left} ?? ${right})`;
    return `B.${ORDERING[op] as string}(${left}, ${right})`;
  }
}

function literal(value: null | boolean | number | string): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  return JSON.stringify(value);
}

/** Names a plain property load reads exactly as B.field does: no Object.prototype member, no array index. */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

function readsDirectly(name: string): boolean {
  return !PROTOTYPE_NAMES.has(name) && !/^(0|[1-9]\d*)$/.test(name);
}

/** `.name` for identifier names, else `["name"]` (V8 compiles both to the same named load). */
function propertyAccess(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}
