/**
 * Which fields of an HTTP trigger's envelope (`{ body, headers, queryAndPath, method, path,
 * contentType, principal }`) a pipeline can observe. The trigger then builds only those: a
 * pipeline that reads `message.body` alone gets no header record, query record or path text made
 * for it on every request.
 *
 * The envelope is observable only while it is the message (or passes through steps unchanged):
 * through `message.<field>` in expressions and JSONPath conditions, and through connectors that
 * read their incoming message (each connector's schema says how it uses it: `"message"`). Any use
 * that cannot be narrowed to fields — `{{ message }}`, `message[expr]`, a JSONPath that is not
 * `$.field…`, a capsule, a connector that reads the message, a labelled step whose output is the
 * envelope, a way through the pipeline that ends with the envelope as its final message (the
 * answer then carries it) — needs all of it. The answer errs on the side of building more, never less.
 *
 * @example
 *   // trigger http { … }  validate { schema: Order, payload: {{ message.body }} }  jolt { … }
 *   envelopeDemand(decl, registry) // Set { 'body' }: validate reads only `payload`, and its output is the body
 */
import type { BranchDecl, PipelineDecl, Step, Value } from '../ast/ast.js';
import { parseExpression } from '../braces/parser.js';
import type { Expr } from '../braces/expr-ast.js';
import type { ConnectorRegistry, MessageUse } from '../connectors/connector-registry.js';

/** The envelope fields the pipeline reads, or 'all'. `body` is always built (the trigger parses it either way). */
export type EnvelopeDemand = ReadonlySet<string> | 'all';

/** Thrown inside the walk as soon as everything is needed: nothing more can be learned. */
class NeedsAll extends Error {}

class Demand {
  readonly fields = new Set<string>(['body']);

  field(name: string): void {
    if (name === '$') throw new NeedsAll();
    this.fields.add(name);
  }

  all(): never {
    throw new NeedsAll();
  }
}

/** Connectors whose `run` reads the whole message unless told otherwise: the safe default. */
const READS_MESSAGE: MessageUse = { read: 'always' };

export function envelopeDemand(decl: PipelineDecl, registry: ConnectorRegistry): EnvelopeDemand {
  const demand = new Demand();
  const branches = new Map(decl.branches.map((b) => [b.name, b]));
  try {
    // A pipeline that can end with the envelope still its message answers with it (`{ body: … }`).
    if (new Walk(demand, registry, branches).block(decl.steps, true)) return 'all';
    return demand.fields;
  } catch (err) {
    if (err instanceof NeedsAll) return 'all';
    throw err;
  }
}

class Walk {
  /** Branches being walked (a branch reached again from inside itself adds nothing new). */
  private readonly entered = new Set<BranchDecl>();

  constructor(
    private readonly demand: Demand,
    private readonly registry: ConnectorRegistry,
    private readonly branches: ReadonlyMap<string, BranchDecl>,
  ) {}

  /** Walks steps whose incoming message may be the envelope (`live`); returns whether it may be afterwards. */
  block(steps: readonly Step[], live: boolean): boolean {
    let current = live;
    for (const step of steps) {
      if (!current) return false;
      current = this.step(step);
    }
    return current;
  }

  /** One step whose incoming message may be the envelope; returns whether its outgoing message may be. */
  private step(step: Step): boolean {
    switch (step.kind) {
      case 'connector':
        return this.connector(step);
      case 'respond':
        if (step.body) this.value(step.body);
        if (step.headers) this.value(step.headers);
        return false;
      case 'fail':
        this.value(step.message);
        return false;
      case 'choice': {
        let live = step.otherwise === undefined; // no `otherwise`: an unmatched message passes on
        for (const when of step.whens) {
          this.condition(when.condition);
          live = this.branchBody(when.body) || live;
        }
        if (step.otherwise) live = this.branchBody(step.otherwise) || live;
        return live;
      }
      case 'try':
        // `catch` gets the error object, never the envelope.
        return this.block(step.body, true);
      case 'for-each':
        // The body's message is an element of what `over` read; the loop's output is its summary.
        this.condition(step.over);
        return false;
    }
  }

  private connector(step: Extract<Step, { kind: 'connector' }>): boolean {
    const schema = this.registry.connectors.get(step.connector);
    // A capsule (or an unknown name, reported elsewhere) runs steps of its own over the message.
    if (!schema) return this.demand.all();
    const use = schema.message ?? READS_MESSAGE;
    for (const entry of step.params.entries) if (entry.kind === 'entry') this.value(entry.value);
    const replacedBy = typeof use.read === 'object' ? use.read.unless : undefined;
    const reads =
      use.read === 'always' ||
      (replacedBy !== undefined && !step.params.entries.some((e) => e.kind === 'entry' && e.key === replacedBy));
    if (reads) return this.demand.all();
    if (!use.passedThrough) return false;
    // The output is the envelope itself: under a label, later steps can read it as `step.<label>`.
    if (step.args.length > (schema.positional?.length ?? 0)) this.demand.all();
    return true;
  }

  private branchBody(body: Extract<Step, { kind: 'choice' }>['otherwise'] & object): boolean {
    if (body.kind === 'inline') return this.block(body.steps, true);
    const branch = this.branches.get(body.name);
    if (!branch || this.entered.has(branch)) return true;
    this.entered.add(branch);
    return this.block(branch.steps, true);
  }

  /** A `when` condition or a `for-each` collection: a JSONPath string or `{{ }}`. */
  private condition(value: Value): void {
    if (value.kind === 'string') this.jsonPath(value.value);
    else this.value(value);
  }

  /** `$.field…` and `$['field']…` read one field; any other JSONPath may read all of the message. */
  private jsonPath(path: string): void {
    const match = /^\s*\$(?:\.([A-Za-z_$][\w$-]*)|\[\s*(['"])(.*?)\2\s*\])/.exec(path);
    const field = match?.[1] ?? match?.[3];
    if (field === undefined || field === '*') this.demand.all();
    else this.demand.field(field);
  }

  private value(value: Value): void {
    switch (value.kind) {
      case 'braces':
        this.expression(value.text);
        return;
      case 'template':
        for (const part of value.parts) if (part.kind === 'braces') this.expression(part.text);
        return;
      case 'array':
        for (const item of value.items) this.value(item);
        return;
      case 'object':
        // `on-fail { … }` steps see the failure output, not the envelope.
        for (const entry of value.entries) if (entry.kind === 'entry') this.value(entry.value);
        return;
      case 'tagged':
        this.value(value.value);
        return;
      default:
        return;
    }
  }

  private expression(text: string): void {
    const parsed = parseExpression(text, { file: '', textStart: 0 });
    // A syntax error is reported by check, and the pipeline is not built; count it as reading all.
    if (parsed.problem) this.demand.all();
    else this.expr(parsed.expr);
  }

  private expr(e: Expr): void {
    switch (e.kind) {
      case 'name':
        // `message` on its own (not `message.field`): the whole envelope.
        if (e.name === 'message') this.demand.all();
        return;
      case 'member':
        if (e.object.kind === 'name' && e.object.name === 'message') this.demand.field(e.property);
        else this.expr(e.object);
        return;
      case 'index':
        if (e.object.kind === 'name' && e.object.name === 'message') {
          if (e.index.kind === 'literal' && typeof e.index.value === 'string') this.demand.field(e.index.value);
          else this.demand.all();
        } else this.expr(e.object);
        this.expr(e.index);
        return;
      case 'call':
        for (const arg of e.args) this.expr(arg);
        return;
      case 'unary':
        this.expr(e.operand);
        return;
      case 'binary':
        this.expr(e.left);
        this.expr(e.right);
        return;
      case 'array':
        for (const item of e.items) this.expr(item);
        return;
      case 'object':
        for (const entry of e.entries) this.expr(entry.value);
        return;
      case 'lambda':
        // A parameter named `message` would shadow it: then its uses count as the envelope's (more, never less).
        this.expr(e.body);
        return;
      case 'literal':
        return;
    }
  }
}
