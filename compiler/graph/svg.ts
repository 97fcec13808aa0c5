/**
 * Graph → SVG without a browser: a small layered layout and a deterministic SVG writer.
 *
 * Each pipeline is laid out on its own (longest-path layers, in node-creation order, then one
 * barycenter pass to reduce crossings) and the pipelines sit side by side. Text width is estimated
 * from a monospace font, coordinates are integers, and nothing depends on time or environment, so
 * the same graph always gives the same bytes (golden tests rely on it). Edges going down are
 * straight; edges going back up (loops) or across pipelines (execute, events) are curves.
 */
import type { Graph, GraphCluster, GraphEdge, GraphNode, NodeShape } from './model.js';

const CHAR_WIDTH = 7;
const LABEL_CHAR_WIDTH = 6;
const NODE_HEIGHT = 34;
const LAYER_GAP = 58;
const NODE_GAP = 28;
const PIPELINE_GAP = 70;
const MARGIN = 20;
const TITLE_HEIGHT = 34;
const MAX_LABEL_CHARS = 44;

interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

interface Placed extends Box {
  readonly node: GraphNode;
  readonly layer: number;
}

export function toSvg(graph: Graph): string {
  const placed = new Map<string, Placed>();
  const pipelineBoxes: { cluster: GraphCluster; box: Box }[] = [];
  let left = MARGIN;
  let height = 0;
  for (const cluster of graph.clusters) {
    const ids = new Set(allNodeIds(cluster));
    const nodes = graph.nodes.filter((n) => ids.has(n.id));
    const layout = layoutPipeline(
      nodes,
      graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to)),
      left,
      MARGIN + TITLE_HEIGHT,
    );
    for (const p of layout.placed) placed.set(p.node.id, p);
    const box = { x: left - 10, y: MARGIN, w: layout.width + 20, h: layout.height + TITLE_HEIGHT + 10 };
    pipelineBoxes.push({ cluster, box });
    left += layout.width + PIPELINE_GAP;
    height = Math.max(height, box.y + box.h);
  }
  const width = Math.max(left - PIPELINE_GAP + MARGIN, 2 * MARGIN);
  const totalHeight = height + MARGIN + 20;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${totalHeight}" viewBox="0 0 ${width} ${totalHeight}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="12">`,
  );
  out.push('<defs>');
  for (const [name, color] of [
    ['arrow', '#5f6368'],
    ['arrow-red', '#d93025'],
    ['arrow-blue', '#1a73e8'],
  ] as const) {
    out.push(
      `<marker id="${name}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${color}"/></marker>`,
    );
  }
  out.push('</defs>');
  out.push(`<rect x="0" y="0" width="${width}" height="${totalHeight}" fill="#ffffff"/>`);
  for (const { cluster, box } of pipelineBoxes) {
    out.push(`<g class="pipeline" id="${escapeXml(cluster.id)}">`);
    out.push(
      `<rect x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" rx="8" fill="#f8f9fa" stroke="#dadce0"/>`,
    );
    out.push(
      `<text x="${box.x + 10}" y="${box.y + 20}" font-weight="bold" fill="#202124">${escapeXml(cluster.label)}</text>`,
    );
    for (const inner of cluster.clusters) writeCluster(inner, placed, out, 0);
    out.push('</g>');
  }
  const labels: string[] = [];
  for (const edge of graph.edges) writeEdge(edge, placed, out, labels);
  for (const p of placed.values()) writeNode(p, out);
  out.push(...labels);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function allNodeIds(cluster: GraphCluster): string[] {
  return [...cluster.nodes, ...cluster.clusters.flatMap(allNodeIds)];
}

function labelOf(node: GraphNode): string {
  return node.label.length > MAX_LABEL_CHARS ? `${node.label.slice(0, MAX_LABEL_CHARS - 1)}…` : node.label;
}

function nodeWidth(node: GraphNode): number {
  const text = labelOf(node).length * CHAR_WIDTH + 24;
  const extra = node.shape === 'decision' ? 24 : 0;
  return Math.max(node.shape === 'end' ? 44 : 64, text + extra);
}

/** Longest-path layers over forward edges (creation order), ordered by one barycenter pass. */
function layoutPipeline(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  left: number,
  top: number,
): { placed: Placed[]; width: number; height: number } {
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const layer = new Map<string, number>();
  const preds = new Map<string, string[]>();
  for (const edge of edges) {
    const from = index.get(edge.from);
    const to = index.get(edge.to);
    if (from === undefined || to === undefined || from >= to || edge.kind === 'loop-back') continue;
    preds.set(edge.to, [...(preds.get(edge.to) ?? []), edge.from]);
  }
  for (const node of nodes) {
    const fromPreds = (preds.get(node.id) ?? []).map((p) => (layer.get(p) ?? 0) + 1);
    layer.set(node.id, Math.max(0, ...fromPreds));
  }
  const layers: GraphNode[][] = [];
  for (const node of nodes) {
    const l = layer.get(node.id) ?? 0;
    (layers[l] ??= []).push(node);
  }
  // One top-down barycenter pass: a node sits under the average position of its predecessors.
  const position = new Map<string, number>();
  layers.forEach((row, l) => {
    if (l > 0) {
      const weight = (n: GraphNode): number => {
        const ps = (preds.get(n.id) ?? []).map((p) => position.get(p)).filter((x): x is number => x !== undefined);
        return ps.length === 0 ? Number.MAX_SAFE_INTEGER : ps.reduce((a, b) => a + b, 0) / ps.length;
      };
      const weights = new Map(row.map((n) => [n.id, weight(n)]));
      row.sort(
        (a, b) =>
          (weights.get(a.id) ?? 0) - (weights.get(b.id) ?? 0) || (index.get(a.id) ?? 0) - (index.get(b.id) ?? 0),
      );
    }
    row.forEach((n, i) => position.set(n.id, i));
  });
  // A node's slot is wide enough for the labels of the edges arriving at it, so labels do not collide.
  const incomingLabel = new Map<string, number>();
  for (const edge of edges) {
    if (edge.label)
      incomingLabel.set(edge.to, Math.max(incomingLabel.get(edge.to) ?? 0, edge.label.length * LABEL_CHAR_WIDTH + 8));
  }
  const slot = (n: GraphNode): number => Math.max(nodeWidth(n), incomingLabel.get(n.id) ?? 0);
  const rowWidths = layers.map(
    (row) => (row ?? []).reduce((sum, n) => sum + slot(n), 0) + NODE_GAP * Math.max(0, (row ?? []).length - 1),
  );
  const width = Math.max(160, ...rowWidths);
  const placed: Placed[] = [];
  layers.forEach((row, l) => {
    let x = left + Math.floor((width - (rowWidths[l] ?? 0)) / 2);
    for (const node of row ?? []) {
      const w = nodeWidth(node);
      const s = slot(node);
      placed.push({
        node,
        layer: l,
        x: x + Math.floor((s - w) / 2),
        y: top + l * (NODE_HEIGHT + LAYER_GAP),
        w,
        h: NODE_HEIGHT,
      });
      x += s + NODE_GAP;
    }
  });
  return { placed, width, height: layers.length * (NODE_HEIGHT + LAYER_GAP) - LAYER_GAP + 10 };
}

const CLUSTER_STYLE: Record<GraphCluster['kind'], [string, string]> = {
  pipeline: ['#f8f9fa', '#dadce0'],
  'for-each': ['#fef7e0', '#f9ab00'],
  try: ['#e8f0fe', '#8ab4f8'],
  catch: ['#fce8e6', '#f28b82'],
  'on-error': ['#fce8e6', '#d93025'],
  branch: ['#f3e8fd', '#c58af9'],
  'on-fail': ['#fce8e6', '#f28b82'],
};

function writeCluster(cluster: GraphCluster, placed: ReadonlyMap<string, Placed>, out: string[], depth: number): void {
  const boxes = allNodeIds(cluster)
    .map((id) => placed.get(id))
    .filter((p): p is Placed => p !== undefined);
  if (boxes.length > 0) {
    const pad = 12 - Math.min(depth, 3) * 2;
    const x = Math.min(...boxes.map((b) => b.x)) - pad;
    const y = Math.min(...boxes.map((b) => b.y)) - pad - 12;
    const right = Math.max(...boxes.map((b) => b.x + b.w)) + pad;
    const bottom = Math.max(...boxes.map((b) => b.y + b.h)) + pad;
    const [fill, stroke] = CLUSTER_STYLE[cluster.kind];
    out.push(
      `<rect x="${x}" y="${y}" width="${right - x}" height="${bottom - y}" rx="6" fill="${fill}" fill-opacity="0.6" stroke="${stroke}" stroke-dasharray="4 3"/>`,
    );
    out.push(`<text x="${x + 6}" y="${y + 11}" font-size="10" fill="#5f6368">${escapeXml(cluster.label)}</text>`);
  }
  for (const inner of cluster.clusters) writeCluster(inner, placed, out, depth + 1);
}

const NODE_STYLE: Record<NodeShape, [string, string]> = {
  trigger: ['#e8f0fe', '#1a73e8'],
  step: ['#ffffff', '#5f6368'],
  decision: ['#fff8e1', '#f9ab00'],
  loop: ['#fef7e0', '#f9ab00'],
  junction: ['#e8f0fe', '#8ab4f8'],
  respond: ['#e6f4ea', '#188038'],
  fail: ['#fce8e6', '#d93025'],
  end: ['#e6f4ea', '#188038'],
};

function writeNode(p: Placed, out: string[]): void {
  const [fill, stroke] = NODE_STYLE[p.node.shape];
  const { x, y, w, h } = p;
  const paint = `fill="${fill}" stroke="${stroke}" stroke-width="1.5"`;
  switch (p.node.shape) {
    case 'decision': {
      const k = 12;
      out.push(
        `<polygon points="${x + k},${y} ${x + w - k},${y} ${x + w},${y + h / 2} ${x + w - k},${y + h} ${x + k},${y + h} ${x},${y + h / 2}" ${paint}/>`,
      );
      break;
    }
    case 'respond':
    case 'fail':
    case 'junction':
    case 'end':
      out.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${h / 2}" ${paint}/>`);
      break;
    case 'loop':
      out.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" ${paint}/>`);
      out.push(`<rect x="${x + 4}" y="${y}" width="${w - 8}" height="${h}" fill="none" stroke="${stroke}"/>`);
      break;
    case 'trigger':
      out.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="10" ${paint}/>`);
      break;
    default:
      out.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" ${paint}/>`);
  }
  out.push(
    `<text x="${x + w / 2}" y="${y + h / 2 + 4}" text-anchor="middle" fill="#202124">${escapeXml(labelOf(p.node))}</text>`,
  );
}

function writeEdge(edge: GraphEdge, placed: ReadonlyMap<string, Placed>, out: string[], labels: string[]): void {
  const from = placed.get(edge.from);
  const to = placed.get(edge.to);
  if (!from || !to) return;
  const color =
    edge.kind === 'error' ? '#d93025' : edge.kind === 'call' || edge.kind === 'event' ? '#1a73e8' : '#5f6368';
  const marker =
    edge.kind === 'error' ? 'arrow-red' : edge.kind === 'call' || edge.kind === 'event' ? 'arrow-blue' : 'arrow';
  const dash = edge.kind === 'flow' || edge.kind === 'call' ? '' : ' stroke-dasharray="5 4"';
  const sameColumn = from.node.pipeline === to.node.pipeline;
  let d: string;
  let labelX: number;
  let labelY: number;
  if (sameColumn && to.y > from.y) {
    const x1 = Math.round(from.x + from.w / 2);
    const y1 = from.y + from.h;
    const x2 = Math.round(to.x + to.w / 2);
    const y2 = to.y;
    d = `M${x1},${y1} L${x2},${y2}`;
    labelY = Math.round(y1 + (y2 - y1) * 0.7);
    labelX = Math.round(x1 + (x2 - x1) * 0.7);
  } else if (sameColumn) {
    // Back up the column (loops): out of the right side, around, into the right side.
    const x1 = from.x + from.w;
    const y1 = Math.round(from.y + from.h / 2);
    const x2 = to.x + to.w;
    const y2 = Math.round(to.y + to.h / 2);
    const bulge = Math.max(x1, x2) + 40;
    d = `M${x1},${y1} C${bulge},${y1} ${bulge},${y2} ${x2},${y2}`;
    labelX = bulge - 10;
    labelY = Math.round((y1 + y2) / 2);
  } else {
    // Across pipelines: from the side facing the target to the target's top.
    const rightward = to.x > from.x;
    const x1 = rightward ? from.x + from.w : from.x;
    const y1 = Math.round(from.y + from.h / 2);
    const x2 = Math.round(to.x + to.w / 2);
    const y2 = to.y;
    d = `M${x1},${y1} C${Math.round((x1 + x2) / 2)},${y1} ${x2},${y2 - 40} ${x2},${y2}`;
    labelX = Math.round((x1 + x2) / 2);
    labelY = Math.round((y1 + y2 - 40) / 2);
  }
  out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="1.3"${dash} marker-end="url(#${marker})"/>`);
  if (edge.label) {
    labels.push(
      `<text x="${labelX}" y="${labelY}" text-anchor="middle" font-size="10" fill="${color}" stroke="#ffffff" stroke-width="3" paint-order="stroke">${escapeXml(edge.label)}</text>`,
    );
  }
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
