/**
 * Optional Graphviz rendering: Graph → DOT text, and DOT → SVG by running `dot -Tsvg` when it is
 * installed. The CLI falls back to the built-in renderer (svg.ts) when `dot` is missing or fails;
 * golden tests never use this path because Graphviz output differs between versions.
 */
import { spawnSync } from 'node:child_process';
import type { Graph, GraphCluster, GraphEdge, GraphNode, NodeShape } from './model.js';

const DOT_SHAPES: Record<NodeShape, string> = {
  trigger: 'shape=box, style="rounded,filled", fillcolor="#e8f0fe", color="#1a73e8"',
  step: 'shape=box',
  decision: 'shape=hexagon, style=filled, fillcolor="#fff8e1", color="#f9ab00"',
  loop: 'shape=box, peripheries=2, style=filled, fillcolor="#fef7e0"',
  junction: 'shape=box, style="rounded"',
  respond: 'shape=box, style="rounded,filled", fillcolor="#e6f4ea", color="#188038"',
  fail: 'shape=box, style="rounded,filled", fillcolor="#fce8e6", color="#d93025"',
  end: 'shape=circle, style=filled, fillcolor="#e6f4ea", color="#188038"',
};

const DOT_EDGES: Record<GraphEdge['kind'], string> = {
  flow: '',
  error: 'style=dashed, color="#d93025"',
  'loop-back': 'style=dashed, constraint=false',
  call: 'penwidth=2, color="#1a73e8"',
  event: 'style=dashed, color="#1a73e8"',
};

export function toDot(graph: Graph): string {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const lines = [
    'digraph pipelines {',
    '  rankdir=TB;',
    '  node [fontname="monospace", fontsize=11];',
    '  edge [fontname="monospace", fontsize=9];',
  ];
  const writeCluster = (cluster: GraphCluster, depth: number): void => {
    const pad = '  '.repeat(depth);
    lines.push(`${pad}subgraph cluster_${cluster.id} {`, `${pad}  label=${dotString(cluster.label)};`);
    for (const id of cluster.nodes) {
      const node = byId.get(id) as GraphNode | undefined;
      if (node) lines.push(`${pad}  ${node.id} [label=${dotString(node.label)}, ${DOT_SHAPES[node.shape]}];`);
    }
    for (const inner of cluster.clusters) writeCluster(inner, depth + 1);
    lines.push(`${pad}}`);
  };
  for (const cluster of graph.clusters) writeCluster(cluster, 1);
  for (const edge of graph.edges) {
    const attrs = [edge.label ? `label=${dotString(edge.label)}` : '', DOT_EDGES[edge.kind]]
      .filter((a) => a !== '')
      .join(', ');
    lines.push(`  ${edge.from} -> ${edge.to}${attrs ? ` [${attrs}]` : ''};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** SVG from Graphviz, or undefined when `dot` is not installed or fails (10 s limit). */
export function renderWithGraphviz(dot: string): string | undefined {
  const run = spawnSync('dot', ['-Tsvg'], {
    input: dot,
    encoding: 'utf8',
    timeout: 10_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error || run.status !== 0 || !run.stdout) return undefined;
  return run.stdout;
}

function dotString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
