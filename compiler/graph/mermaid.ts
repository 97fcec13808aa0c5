/**
 * Graph → Mermaid text (`flowchart TD`), for READMEs and docs. Deterministic: nodes, clusters and
 * edges are written in the order the model holds them. Labels are quoted, with the characters
 * Mermaid would misread written as entity codes.
 */
import type { Graph, GraphCluster, GraphEdge, GraphNode, NodeShape } from './model.js';

const SHAPES: Record<NodeShape, [string, string]> = {
  trigger: ['>', ']'],
  step: ['[', ']'],
  decision: ['{', '}'],
  loop: ['[[', ']]'],
  junction: ['([', '])'],
  respond: ['([', '])'],
  fail: ['([', '])'],
  end: ['((', '))'],
};

const ARROWS: Record<GraphEdge['kind'], string> = {
  flow: '-->',
  error: '-.->',
  'loop-back': '-.->',
  call: '==>',
  event: '-.->',
};

export function toMermaid(graph: Graph): string {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const lines = ['flowchart TD'];
  const writeCluster = (cluster: GraphCluster, depth: number): void => {
    const pad = '  '.repeat(depth);
    lines.push(`${pad}subgraph ${cluster.id}[${quote(cluster.label)}]`);
    if (cluster.kind === 'pipeline') lines.push(`${pad}  direction TB`);
    for (const id of cluster.nodes) {
      const node = byId.get(id);
      if (node) lines.push(`${pad}  ${nodeText(node)}`);
    }
    for (const inner of cluster.clusters) writeCluster(inner, depth + 1);
    lines.push(`${pad}end`);
  };
  for (const cluster of graph.clusters) writeCluster(cluster, 1);
  for (const edge of graph.edges) {
    const label = edge.label ? `|${quote(edge.label)}|` : '';
    lines.push(`  ${edge.from} ${ARROWS[edge.kind]}${label} ${edge.to}`);
  }
  const classes: [string, NodeShape[], string][] = [
    ['trigger', ['trigger'], 'fill:#e8f0fe,stroke:#1a73e8'],
    ['respond', ['respond', 'end'], 'fill:#e6f4ea,stroke:#188038'],
    ['fail', ['fail'], 'fill:#fce8e6,stroke:#d93025'],
  ];
  for (const [name, shapes, style] of classes) {
    const ids = graph.nodes.filter((n) => shapes.includes(n.shape)).map((n) => n.id);
    if (ids.length === 0) continue;
    lines.push(`  classDef ${name} ${style}`);
    lines.push(`  class ${ids.join(',')} ${name}`);
  }
  return `${lines.join('\n')}\n`;
}

function nodeText(node: GraphNode): string {
  const [open, close] = SHAPES[node.shape];
  return `${node.id}${open}${quote(node.label)}${close}`;
}

/** A Mermaid string label: `"` and the characters that break parsing become entity codes. */
function quote(text: string): string {
  const escaped = text
    .replace(/#/g, '#35;')
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
    .replace(/\|/g, '#124;');
  return `"${escaped}"`;
}
