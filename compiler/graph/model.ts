/**
 * The graph of a set of pipelines: ASTs in, a renderer-neutral graph out (nodes, edges, clusters).
 *
 * Each pipeline is a cluster: its trigger, one node per step (label + connector), choice as a
 * decision whose out-edges carry the (shortened) condition text, try/catch and for-each as nested
 * clusters, on-error as a cluster reached from the trigger, respond/fail as terminal nodes, and an
 * `end` node where the flow falls off the last step. Across pipelines, from the connector and
 * trigger schemas' data: a step whose parameter references a pipeline (`x-pipe-ref: pipeline`, e.g.
 * `execute P`) links to P's trigger, and a step whose parameter names an event it publishes
 * (`x-pipe-ref: event`, e.g. `publish X`) links (dashed) to every pipeline whose trigger subscribes
 * to that event. A trigger node shows the parameters its schema's `x-pipe-graph.label` lists.
 * Ids are derived from pipeline names and a counter, so the same input always gives the same graph.
 */
import type { BranchDecl, ConnectorStep, PipeFile, PipelineDecl, Step, Value } from '../ast/ast.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { stepReferences, triggerReferences } from '../connectors/schema-facts.js';

export type NodeShape = 'trigger' | 'step' | 'decision' | 'loop' | 'junction' | 'respond' | 'fail' | 'end';

export interface GraphNode {
  readonly id: string;
  readonly label: string;
  readonly shape: NodeShape;
  /** The pipeline (top-level cluster) it belongs to. */
  readonly pipeline: string;
}

/** `call`: a step runs another pipeline (its parameter references it); `event`: a step publishes what a trigger subscribes to. */
export type EdgeKind = 'flow' | 'error' | 'loop-back' | 'call' | 'event';

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
  readonly kind: EdgeKind;
}

export interface GraphCluster {
  readonly id: string;
  readonly label: string;
  readonly kind: 'pipeline' | 'for-each' | 'try' | 'catch' | 'on-error' | 'branch' | 'on-fail';
  /** Node ids directly inside (not inside a nested cluster). */
  readonly nodes: string[];
  readonly clusters: GraphCluster[];
}

export interface Graph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  /** One per pipeline, in the order given. */
  readonly clusters: readonly GraphCluster[];
}

export interface GraphOptions {
  /** Only this pipeline (and the cross-links leaving it). */
  readonly pipeline?: string;
  /** Longest edge label before it is shortened with `…`. */
  readonly maxLabel?: number;
}

/** An edge waiting for the next node: where it comes from and what it says. */
interface Pending {
  readonly from: string;
  readonly label?: string;
  readonly kind?: EdgeKind;
}

export function buildGraph(files: readonly PipeFile[], registry: ConnectorRegistry, options: GraphOptions = {}): Graph {
  const pipelines = files.flatMap((f) => f.decls.filter((d): d is PipelineDecl => d.kind === 'pipeline'));
  const builder = new GraphBuilder(options.maxLabel ?? 40, registry);
  const chosen = options.pipeline ? pipelines.filter((p) => p.name === options.pipeline) : pipelines;
  for (const pipeline of chosen) builder.pipeline(pipeline);
  builder.linkPipelines();
  return builder.result();
}

/** The names of the pipelines in the files, in order (for `--pipeline` validation). */
export function pipelineNames(files: readonly PipeFile[]): string[] {
  return files.flatMap((f) => f.decls.filter((d): d is PipelineDecl => d.kind === 'pipeline').map((p) => p.name));
}

class GraphBuilder {
  private readonly nodes: GraphNode[] = [];
  private readonly edges: GraphEdge[] = [];
  private readonly clusters: GraphCluster[] = [];
  private readonly triggerOf = new Map<string, string>();
  private readonly eventTriggers = new Map<string, string[]>();
  private readonly calls: { from: string; pipeline: string; label: string }[] = [];
  private readonly publishes: { from: string; event: string }[] = [];
  private readonly usedPrefixes = new Set<string>();
  private counter = 0;
  private pipelineName = '';
  private prefix = '';

  constructor(
    private readonly maxLabel: number,
    private readonly registry: ConnectorRegistry,
  ) {}

  result(): Graph {
    return { nodes: this.nodes, edges: this.edges, clusters: this.clusters };
  }

  pipeline(decl: PipelineDecl): void {
    this.pipelineName = decl.name;
    let prefix = `${safeId(decl.name)}_`;
    while (this.usedPrefixes.has(prefix)) prefix = `${prefix}x_`;
    this.usedPrefixes.add(prefix);
    this.prefix = prefix;
    this.counter = 0;
    const cluster: GraphCluster = {
      id: `${this.prefix}pipeline`,
      label: `pipeline ${decl.name}`,
      kind: 'pipeline',
      nodes: [],
      clusters: [],
    };
    this.clusters.push(cluster);
    const trigger = this.node(cluster, this.triggerLabel(decl), 'trigger');
    this.triggerOf.set(decl.name, trigger);
    const triggerSchema = decl.trigger ? this.registry.triggers.get(decl.trigger.kind) : undefined;
    for (const event of decl.trigger && triggerSchema ? triggerReferences(decl.trigger, triggerSchema, 'event') : []) {
      this.eventTriggers.set(event.name, [...(this.eventTriggers.get(event.name) ?? []), trigger]);
    }

    const branches = new Map<string, BranchDecl>(decl.branches.map((b) => [b.name, b]));
    const builtBranches = new Map<string, { entry: Pending[]; exits: Pending[]; first?: string }>();
    const context: FlowContext = { branches, builtBranches, pipelineCluster: cluster };
    const exits = this.steps(decl.steps, [{ from: trigger }], cluster, context);
    if (exits.length > 0) this.connect(exits, this.node(cluster, 'end', 'end'));
    if (decl.onError) {
      const onError: GraphCluster = {
        id: this.id('on_error'),
        label: 'on-error',
        kind: 'on-error',
        nodes: [],
        clusters: [],
      };
      cluster.clusters.push(onError);
      const errorExits = this.steps(
        decl.onError,
        [{ from: trigger, label: 'on error', kind: 'error' }],
        onError,
        context,
      );
      if (errorExits.length > 0) this.connect(errorExits, this.node(onError, 'end', 'end'));
    }
  }

  /** Cross-pipeline edges, added once every pipeline's trigger is known. */
  linkPipelines(): void {
    for (const call of this.calls) {
      const target = this.triggerOf.get(call.pipeline);
      if (target) this.edges.push({ from: call.from, to: target, label: call.label, kind: 'call' });
    }
    for (const publish of this.publishes) {
      for (const target of this.eventTriggers.get(publish.event) ?? [])
        this.edges.push({ from: publish.from, to: target, label: `event ${publish.event}`, kind: 'event' });
    }
  }

  private id(suffix: string): string {
    this.counter++;
    return `${this.prefix}${suffix}${this.counter}`;
  }

  private node(cluster: GraphCluster, label: string, shape: NodeShape): string {
    const id = this.id('n');
    this.nodes.push({ id, label, shape, pipeline: this.pipelineName });
    cluster.nodes.push(id);
    return id;
  }

  private connect(pending: readonly Pending[], to: string): void {
    for (const p of pending)
      this.edges.push({ from: p.from, to, kind: p.kind ?? 'flow', ...(p.label ? { label: p.label } : {}) });
  }

  /** Lays out a sequence of steps; returns the edges that leave its end. */
  private steps(steps: readonly Step[], entry: Pending[], cluster: GraphCluster, context: FlowContext): Pending[] {
    let pending = entry;
    for (const step of steps) {
      if (pending.length === 0) break; // unreachable after respond/fail: the compiler reports it
      pending = this.step(step, pending, cluster, context);
    }
    return pending;
  }

  private step(step: Step, pending: Pending[], cluster: GraphCluster, context: FlowContext): Pending[] {
    switch (step.kind) {
      case 'connector':
        return this.connector(step, pending, cluster, context);
      case 'respond': {
        this.connect(pending, this.node(cluster, `respond ${step.status}`, 'respond'));
        return [];
      }
      case 'fail': {
        this.connect(pending, this.node(cluster, step.status !== undefined ? `fail ${step.status}` : 'fail', 'fail'));
        return [];
      }
      case 'choice': {
        const decision = this.node(cluster, step.label ? `choice ${step.label}` : 'choice', 'decision');
        this.connect(pending, decision);
        const exits: Pending[] = [];
        for (const when of step.whens) {
          const label = this.shorten(conditionText(when.condition));
          exits.push(...this.branchBody(when.body, [{ from: decision, label }], cluster, context));
        }
        if (step.otherwise)
          exits.push(...this.branchBody(step.otherwise, [{ from: decision, label: 'otherwise' }], cluster, context));
        else exits.push({ from: decision, label: 'no match' });
        return exits;
      }
      case 'try': {
        const junction = this.node(cluster, 'try', 'junction');
        this.connect(pending, junction);
        const body: GraphCluster = { id: this.id('try'), label: 'try', kind: 'try', nodes: [], clusters: [] };
        const handler: GraphCluster = { id: this.id('catch'), label: 'catch', kind: 'catch', nodes: [], clusters: [] };
        cluster.clusters.push(body, handler);
        const bodyExits = this.steps(step.body, [{ from: junction }], body, context);
        const catchExits =
          step.catchBody.length > 0
            ? this.steps(step.catchBody, [{ from: junction, label: 'error', kind: 'error' }], handler, context)
            : [{ from: junction, label: 'error (ignored)', kind: 'error' as const }];
        return [...bodyExits, ...catchExits];
      }
      case 'for-each': {
        const loop: GraphCluster = {
          id: this.id('each'),
          label: step.label ? `for-each ${step.label}` : 'for-each',
          kind: 'for-each',
          nodes: [],
          clusters: [],
        };
        cluster.clusters.push(loop);
        const head = this.node(loop, `for-each ${this.shorten(conditionText(step.over))}`, 'loop');
        this.connect(pending, head);
        const bodyExits = this.steps(step.body, [{ from: head, label: 'each' }], loop, context);
        for (const exit of bodyExits)
          this.edges.push({
            from: exit.from,
            to: head,
            kind: 'loop-back',
            ...(exit.label ? { label: exit.label } : {}),
          });
        return [{ from: head, label: 'done' }];
      }
    }
  }

  private connector(step: ConnectorStep, pending: Pending[], cluster: GraphCluster, context: FlowContext): Pending[] {
    const header = [
      step.connector,
      ...step.args.map((a) => (a.kind === 'string' ? JSON.stringify(a.text) : a.text)),
    ].join(' ');
    const id = this.node(cluster, header, 'step');
    this.connect(pending, id);
    const schema = this.registry.connectors.get(step.connector);
    for (const ref of schema ? stepReferences(step, schema, 'pipeline') : [])
      this.calls.push({ from: id, pipeline: ref.name, label: step.connector });
    for (const ref of schema ? stepReferences(step, schema, 'event') : [])
      this.publishes.push({ from: id, event: ref.name });
    const exits: Pending[] = [{ from: id }];
    // A steps entry (validate's `on-fail { … }`) is a side branch taken when the step says so.
    for (const entry of step.params.entries) {
      if (entry.kind !== 'steps-entry') continue;
      const side: GraphCluster = { id: this.id('side'), label: entry.key, kind: 'on-fail', nodes: [], clusters: [] };
      cluster.clusters.push(side);
      exits.push(...this.steps(entry.steps, [{ from: id, label: entry.key, kind: 'error' }], side, context));
    }
    return exits;
  }

  private branchBody(
    body: Extract<Step, { kind: 'choice' }>['whens'][number]['body'],
    entry: Pending[],
    cluster: GraphCluster,
    context: FlowContext,
  ): Pending[] {
    if (body.kind === 'inline') return this.steps(body.steps, entry, cluster, context);
    const built = context.builtBranches.get(body.name);
    if (built?.first) {
      this.connect(entry, built.first);
      return built.exits;
    }
    const decl = context.branches.get(body.name);
    if (!decl) return entry;
    const branchCluster: GraphCluster = {
      id: this.id('branch'),
      label: `branch ${decl.name}`,
      kind: 'branch',
      nodes: [],
      clusters: [],
    };
    context.pipelineCluster.clusters.push(branchCluster);
    const before = this.nodes.length;
    const exits = this.steps(decl.steps, entry, branchCluster, context);
    const first = this.nodes[before]?.id;
    context.builtBranches.set(body.name, { entry, exits, ...(first ? { first } : {}) });
    return exits;
  }

  /** `http POST /orders`, `event orders.created`, `scheduler 0 * * * *`, … */
  private triggerLabel(decl: PipelineDecl): string {
    const trigger = decl.trigger;
    if (!trigger) return 'no trigger';
    const parts = [trigger.kind];
    for (const key of this.registry.triggers.get(trigger.kind)?.['x-pipe-graph']?.label ?? []) {
      const value = trigger.config.entries.find((e) => e.kind === 'entry' && e.key === key);
      if (value?.kind === 'entry') parts.push(scalarText(value.value));
    }
    return parts.filter((p) => p !== '').join(' ');
  }

  private shorten(text: string): string {
    const oneLine = text.replace(/\s+/g, ' ').trim();
    return oneLine.length <= this.maxLabel ? oneLine : `${oneLine.slice(0, this.maxLabel - 1)}…`;
  }
}

interface FlowContext {
  readonly branches: ReadonlyMap<string, BranchDecl>;
  readonly builtBranches: Map<string, { entry: Pending[]; exits: Pending[]; first?: string }>;
  readonly pipelineCluster: GraphCluster;
}

function scalarText(value: Value): string {
  switch (value.kind) {
    case 'string':
      return value.value;
    case 'ident':
      return value.name;
    case 'number':
    case 'duration':
    case 'size':
      return value.raw;
    case 'boolean':
      return String(value.value);
    default:
      return '';
  }
}

/** The text of a `when` condition or `for-each` source: the JSONPath, or the `{{ }}` expression. */
export function conditionText(value: Value): string {
  switch (value.kind) {
    case 'string':
      return value.value;
    case 'braces':
      return `{{ ${value.text.trim()} }}`;
    case 'template':
      return value.parts.map((p) => (p.kind === 'text' ? p.value : `{{ ${p.text.trim()} }}`)).join('');
    default:
      return scalarText(value);
  }
}

/** Mermaid and SVG ids: letters, digits and `_` only. */
function safeId(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}
