/**
 * `pipec graph` entry: parsed files → Mermaid text or SVG. Pure; the CLI reads the files and
 * chooses whether Graphviz renders the SVG (graphviz.ts) or the built-in renderer does.
 */
import type { PipeFile } from '../ast/ast.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { toMermaid } from './mermaid.js';
import { buildGraph, type GraphOptions } from './model.js';
import { toSvg } from './svg.js';

export type GraphFormat = 'mermaid' | 'svg';

export function renderGraph(
  files: readonly PipeFile[],
  registry: ConnectorRegistry,
  format: GraphFormat,
  options: GraphOptions = {},
): string {
  const graph = buildGraph(files, registry, options);
  return format === 'mermaid' ? toMermaid(graph) : toSvg(graph);
}

export { buildGraph, pipelineNames, type Graph, type GraphOptions } from './model.js';
export { toMermaid } from './mermaid.js';
export { toSvg } from './svg.js';
