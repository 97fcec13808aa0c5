/**
 * JSLT syntax tree → JavaScript source. The output is one function expression
 * `(input, variables) => …` that refers only to `L` (the namespace of runtime/jslt/index.ts):
 * variables become `const`s, `def`s become JS functions, loops become `L.forArray`/`L.forObject`
 * callbacks. Nothing of the syntax tree survives to run time.
 * Also the static checks of the reference compiler: unknown functions, argument counts,
 * duplicate variables and keys, misplaced object matchers, literal regular expressions.
 * Input: parsed programs (main + imported modules). Output: JS text and problems with source ranges.
 */
import { BUILTINS } from '../../runtime/jslt/builtins.js';
import { regexProblem } from '../../runtime/jslt/regex.js';
import { isKnownZone } from '../../runtime/jslt/time.js';
import { closestZone } from '../braces/zones.js';
import type { Expr, FunctionDecl, LetBinding, Program, Range } from './ast.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';
import * as E from './errors.js';
import type { JsltProblem } from './errors.js';

/** A static problem, located in the main query (module problems point at their import). */
export interface CodegenProblem {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

export const EXPERIMENTAL_MODULE = 'http://jslt.schibsted.com/2018/experimental';
/** Prefix target of an import that failed (already reported): its calls stay silent. */
export const UNAVAILABLE_MODULE = '<unavailable>';

/** A compiled unit: the main query, an imported file, or the built-in experimental module. */
export interface ModuleUnit {
  readonly id: string;
  readonly program: Program | 'experimental';
  /** prefix → module id, for this unit's own imports */
  readonly imports: ReadonlyMap<string, string>;
  /** where problems inside this unit are reported (its import statement in the main query) */
  readonly reportAt: Range | undefined;
}

interface FunctionInfo {
  readonly jsName: string;
  readonly arity: number;
}

interface ModuleSymbols {
  readonly functions: Map<string, FunctionInfo>;
  /** JS name of the body function when the module can be called as `prefix(x)` */
  readonly bodyFunction: string | undefined;
  readonly experimental: boolean;
}

/** Where an object matcher `* : …` takes its keys from: a key path below `.`, or nowhere. */
type MatchContext =
  { readonly kind: 'path'; readonly keys: readonly string[] } | { readonly kind: 'fail'; readonly where: string };

const ROOT_MATCH: MatchContext = { kind: 'path', keys: [] };
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '==': 'equals',
  '!=': 'notEquals',
  '<': 'less',
  '<=': 'lessOrEqual',
  '>': 'greater',
  '>=': 'greaterOrEqual',
  '+': 'plus',
  '-': 'minus',
  '*': 'times',
  '/': 'divide',
  '%': 'modulo',
};

class Scope {
  private readonly names = new Map<string, string>();
  constructor(readonly parent: Scope | undefined) {}

  lookup(name: string): string | undefined {
    return this.names.get(name) ?? this.parent?.lookup(name);
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  bind(name: string, jsName: string): void {
    this.names.set(name, jsName);
  }
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

function accessor(name: string): string {
  return IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

class Generator {
  private counter = 0;
  readonly problems: CodegenProblem[] = [];
  private readonly symbols = new Map<string, ModuleSymbols>();
  private unit: ModuleUnit;

  constructor(private readonly units: readonly ModuleUnit[]) {
    this.unit = units[units.length - 1] as ModuleUnit;
  }

  private fresh(prefix: string, name: string): string {
    return `${prefix}_${safeName(name)}_${++this.counter}`;
  }

  private report(problem: JsltProblem, at: Range): void {
    const where = this.unit.reportAt;
    const inModule = where !== undefined ? ` (in module ${this.unit.id})` : '';
    const range = where ?? at;
    this.problems.push({ code: problem.code, message: problem.message + inModule, start: range.start, end: range.end });
  }

  // ───────────────────────────── program ─────────────────────────────

  generate(): string {
    const lines: string[] = [];
    for (const unit of this.units) {
      this.unit = unit;
      this.declareSymbols(unit);
    }
    for (const unit of this.units) {
      this.unit = unit;
      if (unit.program !== 'experimental') lines.push(...this.moduleCode(unit, unit.program));
    }
    const main = this.units[this.units.length - 1] as ModuleUnit;
    const mainProgram = main.program as Program;
    this.unit = main;
    const globals = this.globalScopes.get(main.id) as Scope;
    const body = mainProgram.body ? this.expr(mainProgram.body, globals, ROOT_MATCH, '  ') : 'null';
    lines.push(`  return ${body};`);
    return `(input, variables) => L.run(input, variables, (rt, dot) => {\n${lines.join('\n')}\n})`;
  }

  private readonly globalScopes = new Map<string, Scope>();

  private declareSymbols(unit: ModuleUnit): void {
    if (unit.program === 'experimental') {
      this.symbols.set(unit.id, { functions: new Map(), bodyFunction: undefined, experimental: true });
      return;
    }
    const functions = new Map<string, FunctionInfo>();
    for (const decl of unit.program.functions) {
      functions.set(decl.name, { jsName: this.fresh('f', decl.name), arity: decl.params.length });
    }
    const isMain = unit === this.units[this.units.length - 1];
    const bodyFunction =
      !isMain && unit.program.body ? this.fresh('module', unit.id.replace(/\.jslt$/, '')) : undefined;
    this.symbols.set(unit.id, { functions, bodyFunction, experimental: false });
  }

  private moduleCode(unit: ModuleUnit, program: Program): string[] {
    const lines: string[] = [];
    const globals = new Scope(undefined);
    this.globalScopes.set(unit.id, globals);
    const symbols = this.symbols.get(unit.id) as ModuleSymbols;
    const letLines: string[] = [];
    // globals are bound first so functions (hoisted in JS) can use any of them
    const globalNames = program.lets.map((binding) => this.declare(globals, binding, 'v'));
    program.lets.forEach((binding, position) => {
      const visible = new Scope(undefined);
      program.lets
        .slice(0, position)
        .forEach((earlier, index) => visible.bind(earlier.name, globalNames[index] as string));
      letLines.push(`  const ${globalNames[position]} = ${this.expr(binding.value, visible, ROOT_MATCH, '  ')};`);
    });
    for (const decl of program.functions) lines.push(this.functionCode(decl, symbols, globals));
    if (symbols.bodyFunction && program.body) {
      const body = this.expr(program.body, globals, ROOT_MATCH, '    ');
      lines.push(
        `  function ${symbols.bodyFunction}(dot) {\n    L.enter(rt, ${JSON.stringify(unit.id)});\n` +
          `    try {\n      return ${body};\n    } finally {\n      rt.depth--;\n    }\n  }`,
      );
    }
    return [...lines, ...letLines];
  }

  private declare(scope: Scope, binding: { name: string } & Range, prefix: string): string {
    if (scope.has(binding.name)) this.report(E.variableDeclaredTwice(binding.name), binding);
    const jsName = this.fresh(prefix, binding.name);
    scope.bind(binding.name, jsName);
    return jsName;
  }

  private functionCode(decl: FunctionDecl, symbols: ModuleSymbols, globals: Scope): string {
    const info = symbols.functions.get(decl.name) as FunctionInfo;
    const scope = new Scope(globals);
    const params = decl.params.map((param) =>
      this.declare(scope, { name: param, start: decl.start, end: decl.nameRange.end }, 'p'),
    );
    const inner = new Scope(scope);
    const fail: MatchContext = { kind: 'fail', where: 'function declaration' };
    const lets = this.letLines(decl.lets, inner, fail, '      ');
    const body = this.expr(decl.body, inner, fail, '      ');
    return (
      `  function ${info.jsName}(${['dot', ...params].join(', ')}) {\n` +
      `    L.enter(rt, ${JSON.stringify(decl.name)});\n    try {\n${lets}      return ${body};\n` +
      `    } finally {\n      rt.depth--;\n    }\n  }`
    );
  }

  /** `let`s of a block, each visible to the ones after it; returns `const …;` lines. */
  private letLines(lets: readonly LetBinding[], scope: Scope, match: MatchContext, indent: string): string {
    let out = '';
    for (const binding of lets) {
      const value = this.expr(binding.value, scope, match, indent);
      const jsName = this.declare(scope, binding, 'v');
      out += `${indent}const ${jsName} = ${value};\n`;
    }
    return out;
  }

  /** An expression preceded by lets: inline when there are none, else an arrow-function block. */
  private block(lets: readonly LetBinding[], body: Expr, outer: Scope, match: MatchContext, indent: string): string {
    if (lets.length === 0) return this.expr(body, outer, match, indent);
    const scope = new Scope(outer);
    const inner = indent + '  ';
    const letText = this.letLines(lets, scope, match, inner);
    return `(() => {\n${letText}${inner}return ${this.expr(body, scope, match, inner)};\n${indent}})()`;
  }

  // ───────────────────────────── expressions ─────────────────────────────

  expr(node: Expr, scope: Scope, match: MatchContext, indent: string): string {
    switch (node.kind) {
      case 'literal':
        return node.value === null ? 'null' : JSON.stringify(node.value);
      case 'number':
        return this.numberLiteral(node.text, node.decimal);
      case 'dot':
        return 'dot';
      case 'key':
        return `L.get(${node.target ? this.expr(node.target, scope, match, indent) : 'dot'}, ${JSON.stringify(node.key)})`;
      case 'index':
        return `L.index(${node.target ? this.expr(node.target, scope, match, indent) : 'dot'}, ${this.expr(node.index, scope, match, indent)})`;
      case 'slice': {
        const target = node.target ? this.expr(node.target, scope, match, indent) : 'dot';
        const from = node.from ? this.expr(node.from, scope, match, indent) : 'undefined';
        const to = node.to ? this.expr(node.to, scope, match, indent) : 'undefined';
        return `L.slice(${target}, ${from}, ${to})`;
      }
      case 'variable':
        return scope.lookup(node.name) ?? `L.variable(rt, ${JSON.stringify(node.name)})`;
      case 'call':
        return this.call(node, scope, match, indent);
      case 'binary':
        return this.binary(node, scope, match, indent);
      case 'if': {
        const condition = this.expr(node.condition, scope, match, indent);
        const then = this.block(node.thenLets, node.then, scope, match, indent);
        const otherwise = node.else ? this.block(node.elseLets, node.else, scope, match, indent) : 'null';
        return `(L.truthy(${condition}) ? ${then} : ${otherwise})`;
      }
      case 'array': {
        const fail: MatchContext = { kind: 'fail', where: 'array' };
        return `[${node.items.map((item) => this.expr(item, scope, fail, indent)).join(', ')}]`;
      }
      case 'arrayFor':
        return this.arrayFor(node, scope, match, indent);
      case 'object':
        return this.object(node, scope, match, indent);
      case 'objectFor':
        return this.objectFor(node, scope, match, indent);
    }
  }

  private numberLiteral(text: string, decimal: boolean): string {
    const value = Number(text);
    if (decimal && Number.isInteger(value)) return `L.dec(${Object.is(value, -0) ? '-0' : value})`;
    return value < 0 || Object.is(value, -0) ? `(${String(value)})` : String(value);
  }

  private binary(node: Extract<Expr, { kind: 'binary' }>, scope: Scope, match: MatchContext, indent: string): string {
    if (node.op === '|') {
      const left = this.expr(node.left, scope, match, indent);
      return `((dot) => ${this.expr(node.right, scope, ROOT_MATCH, indent)})(${left})`;
    }
    const left = this.expr(node.left, scope, match, indent);
    const right = this.expr(node.right, scope, match, indent);
    if (node.op === 'or') return `(L.truthy(${left}) || L.truthy(${right}))`;
    if (node.op === 'and') return `(L.truthy(${left}) && L.truthy(${right}))`;
    return `L.${OPERATOR_FUNCTIONS[node.op]}(${left}, ${right})`;
  }

  private arrayFor(
    node: Extract<Expr, { kind: 'arrayFor' }>,
    scope: Scope,
    match: MatchContext,
    indent: string,
  ): string {
    const sequence = this.expr(node.sequence, scope, match, indent);
    if (node.lets.length === 0 && !node.filter) {
      return `L.forArray(${sequence}, (dot) => ${this.expr(node.body, scope, ROOT_MATCH, indent)})`;
    }
    const inner = indent + '  ';
    const loopScope = new Scope(scope);
    let text = this.letLines(node.lets, loopScope, ROOT_MATCH, inner);
    if (node.filter)
      text += `${inner}if (!L.truthy(${this.expr(node.filter, loopScope, ROOT_MATCH, inner)})) return L.SKIP;\n`;
    text += `${inner}return ${this.expr(node.body, loopScope, ROOT_MATCH, inner)};\n`;
    return `L.forArray(${sequence}, (dot) => {\n${text}${indent}})`;
  }

  private objectFor(
    node: Extract<Expr, { kind: 'objectFor' }>,
    scope: Scope,
    match: MatchContext,
    indent: string,
  ): string {
    const sequence = this.expr(node.sequence, scope, match, indent);
    const inner = indent + '  ';
    const loopScope = new Scope(scope);
    let text = this.letLines(node.lets, loopScope, match, inner);
    if (node.filter) text += `${inner}if (!L.truthy(${this.expr(node.filter, loopScope, match, inner)})) return;\n`;
    text += `${inner}const value = ${this.expr(node.value, loopScope, match, inner)};\n`;
    text += `${inner}if (L.isValue(value)) L.putComprehended(out, ${this.expr(node.key, loopScope, match, inner)}, value);\n`;
    return `L.forObject(${sequence}, (dot, out) => {\n${text}${indent}})`;
  }

  private object(node: Extract<Expr, { kind: 'object' }>, scope: Scope, match: MatchContext, indent: string): string {
    const staticKeys = new Set<string>();
    let dynamic = false;
    for (const pair of node.pairs) {
      if (pair.key.kind === 'literal' && typeof pair.key.value === 'string') {
        if (staticKeys.has(pair.key.value)) {
          this.report(E.duplicateObjectKey(pair.key.value), pair.key);
        }
        staticKeys.add(pair.key.value);
      } else dynamic = true;
    }
    if (node.matcher && dynamic) {
      this.report(E.matcherWithDynamicKeys(), node.matcher);
    } else if (node.matcher && match.kind === 'fail') {
      this.report(E.matcherMisplaced(match.where), node.matcher);
    }

    const pairValue = (pair: (typeof node.pairs)[number], pairScope: Scope, inner: string): string => {
      const isStatic = pair.key.kind === 'literal' && typeof pair.key.value === 'string';
      const childMatch: MatchContext = !isStatic
        ? { kind: 'fail', where: 'dynamic object' }
        : match.kind === 'path'
          ? { kind: 'path', keys: [...match.keys, pair.key.value as string] }
          : match;
      return this.expr(pair.value, pairScope, childMatch, inner);
    };

    if (node.lets.length === 0 && !dynamic && !node.matcher) {
      if (node.pairs.length === 0) return 'L.newObject()';
      const inner = indent + '  ';
      const entries = node.pairs.map(
        (pair) =>
          `${inner}[${JSON.stringify((pair.key as { value: string }).value)}, ${pairValue(pair, scope, inner)}],`,
      );
      return `L.object([\n${entries.join('\n')}\n${indent}])`;
    }

    const inner = indent + '  ';
    const objectScope = new Scope(scope);
    let text = this.letLines(node.lets, objectScope, match, inner);
    text += `${inner}const out = L.newObject();\n`;
    for (const pair of node.pairs) {
      const value = pairValue(pair, objectScope, inner);
      if (pair.key.kind === 'literal' && typeof pair.key.value === 'string') {
        text += `${inner}L.put(out, ${JSON.stringify(pair.key.value)}, ${value});\n`;
      } else {
        const key = this.expr(pair.key, objectScope, match, inner);
        text += `${inner}{\n${inner}  const value = ${value};\n${inner}  if (L.isValue(value)) L.putDynamic(out, ${key}, value);\n${inner}}\n`;
      }
    }
    if (node.matcher) {
      const context =
        match.kind === 'path' && match.keys.length > 0 ? `L.path(dot, ${JSON.stringify(match.keys)})` : 'dot';
      const skipped = JSON.stringify([...staticKeys, ...node.matcher.minus]);
      const valueOf = this.expr(node.matcher.value, objectScope, ROOT_MATCH, inner);
      text += `${inner}L.match(out, ${context}, ${skipped}, (dot) => ${valueOf});\n`;
    }
    return `(() => {\n${text}${inner}return out;\n${indent}})()`;
  }

  // ───────────────────────────── calls ─────────────────────────────

  private checkArity(name: string, min: number, max: number, node: Extract<Expr, { kind: 'call' }>): boolean {
    const count = node.args.length;
    if (count >= min && count <= max) return true;
    this.report(E.wrongArgumentCount(name, min, max, count), node);
    return false;
  }

  private call(node: Extract<Expr, { kind: 'call' }>, scope: Scope, match: MatchContext, indent: string): string {
    const args = (): string[] => node.args.map((arg) => this.expr(arg, scope, match, indent));
    const symbols = this.symbols.get(this.unit.id) as ModuleSymbols;

    if (node.name.includes(':')) return this.moduleCall(node, scope, match, indent);

    if (node.name === 'fallback') {
      if (!this.checkArity('fallback', 2, 1024, node)) return 'null';
      return `L.firstValue(${args()
        .map((arg) => `() => ${arg}`)
        .join(', ')})`;
    }
    const declared = symbols.functions.get(node.name);
    if (declared) {
      if (!this.checkArity(node.name, declared.arity, declared.arity, node)) return 'null';
      return `${declared.jsName}(${['dot', ...args()].join(', ')})`;
    }
    const moduleId = this.unit.imports.get(node.name);
    if (moduleId === UNAVAILABLE_MODULE) return 'null';
    const moduleSymbols = moduleId === undefined ? undefined : this.symbols.get(moduleId);
    if (moduleSymbols?.bodyFunction) {
      if (!this.checkArity(node.name, 1, 1, node)) return 'null';
      return `${moduleSymbols.bodyFunction}(${args()[0]})`;
    }
    const builtin = BUILTINS.get(node.name);
    if (!builtin) {
      this.report(E.noSuchFunction(node.name), node.nameRange);
      return 'null';
    }
    if (!this.checkArity(node.name, builtin.min, builtin.max, node)) return 'null';
    if (builtin.regexArgument !== undefined) this.checkRegex(node.args[builtin.regexArgument]);
    if (builtin.zoneArgument !== undefined) this.checkZone(node.args[builtin.zoneArgument]);
    return `L.fn${accessor(node.name)}(${args().join(', ')})`;
  }

  /** A literal zone the run time's `isKnownZone` refuses fails every call: PIPE5550 with the closest zone. */
  private checkZone(arg: Expr | undefined): void {
    if (arg?.kind !== 'literal' || typeof arg.value !== 'string' || isKnownZone(arg.value)) return;
    this.report(E.unknownZone(arg.value, closestZone(arg.value)), arg);
  }

  private checkRegex(arg: Expr | undefined): void {
    if (arg?.kind !== 'literal' || typeof arg.value !== 'string') return;
    const problem = regexProblem(arg.value, 'java');
    if (problem === undefined) return;
    if (problem.needsBacktracking) {
      this.report(E.regexNeedsBacktracking(arg.value, problem.message), arg);
    } else {
      this.report(E.badRegex(arg.value, problem.message), arg);
    }
  }

  private moduleCall(node: Extract<Expr, { kind: 'call' }>, scope: Scope, match: MatchContext, indent: string): string {
    const colon = node.name.indexOf(':');
    const prefix = node.name.slice(0, colon);
    const name = node.name.slice(colon + 1);
    const moduleId = this.unit.imports.get(prefix);
    if (moduleId === UNAVAILABLE_MODULE) return 'null';
    const symbols = moduleId === undefined ? undefined : this.symbols.get(moduleId);
    if (!symbols) {
      this.report(E.noSuchModule(prefix), node.nameRange);
      return 'null';
    }
    const args = (): string[] => node.args.map((arg) => this.expr(arg, scope, match, indent));
    if (symbols.experimental && name === 'group-by') {
      if (!this.checkArity(node.name, 3, 3, node)) return 'null';
      const [sequence, key, value] = node.args as [Expr, Expr, Expr];
      return (
        `L.groupBy(${this.expr(sequence, scope, match, indent)}, ` +
        `(dot) => ${this.expr(key, scope, match, indent)}, (dot) => ${this.expr(value, scope, match, indent)})`
      );
    }
    const target = symbols.functions.get(name);
    if (!target) {
      this.report(E.noSuchFunction(node.name), node.nameRange);
      return 'null';
    }
    if (!this.checkArity(node.name, target.arity, target.arity, node)) return 'null';
    return `${target.jsName}(${['dot', ...args()].join(', ')})`;
  }
}

/** Generates the JS function expression for the units (imported modules first, main query last). */
export function generateJs(units: readonly ModuleUnit[]): { js: string; problems: CodegenProblem[] } {
  const generator = new Generator(units);
  const js = generator.generate();
  return { js, problems: generator.problems };
}
