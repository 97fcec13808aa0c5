/**
 * JSONPath for Choice conditions and for-each, on jsonpath-plus with the semantics Digibee users
 * expect from Jayway JsonPath: a filter `[?(…)]` applied to an OBJECT tests the object itself
 * (so `$.body[?(@.total < 500)]` matches when body.total < 500), while on an array it tests each
 * element. A path "matches" when it yields at least one node.
 *
 * Paths are split once (`compileJsonPath`, called when a pipeline module loads); filter scripts are
 * evaluated by jsonpath-plus's safe evaluator (no `eval`, no prototype access).
 */
import { JSONPath } from 'jsonpath-plus';
import type { Json } from './types.js';

export interface CompiledJsonPath {
  readonly source: string;
  /** Runs of plain segments separated by filter segments: [prefix, filter, rest…]. */
  readonly parts: readonly JsonPathPart[];
}

type JsonPathPart = { readonly kind: 'path'; readonly path: string } | { readonly kind: 'filter'; readonly script: string };

export function compileJsonPath(source: string): CompiledJsonPath {
  const segments = JSONPath.toPathArray(normalizeJsonPath(source)) as string[];
  const parts: JsonPathPart[] = [];
  let run: string[] = ['$'];
  for (const segment of segments.slice(1)) {
    if (segment.startsWith('?(')) {
      // A filter right after `..` keeps jsonpath-plus semantics (descendants are iterated anyway).
      if (run[run.length - 1] === '..') {
        run.push(segment);
        continue;
      }
      parts.push({ kind: 'path', path: JSONPath.toPathString(run) });
      parts.push({ kind: 'filter', script: segment });
      run = ['$'];
    } else {
      run.push(segment);
    }
  }
  parts.push({ kind: 'path', path: JSONPath.toPathString(run) });
  return { source, parts };
}

/**
 * Jayway reads `$.[…]` as `$[…]`; jsonpath-plus would read it as `$..[…]` (descendants).
 * Only a single dot before `[` is rewritten.
 */
export function normalizeJsonPath(source: string): string {
  return source.replace(/(?<!\.)\.\[/g, '[');
}

/** All nodes the path selects. */
export function jsonPathQuery(path: CompiledJsonPath, json: Json): Json[] {
  let nodes: Json[] = [json];
  for (const part of path.parts) {
    const next: Json[] = [];
    for (const node of nodes) {
      if (part.kind === 'path') {
        if (part.path === '$') next.push(node);
        else next.push(...(JSONPath({ path: part.path, json: node as object, wrap: true, eval: 'safe' }) as Json[]));
      } else if (Array.isArray(node)) {
        next.push(...(JSONPath({ path: `$[${part.script}]`, json: node, wrap: true, eval: 'safe' }) as Json[]));
      } else if (node !== null && typeof node === 'object') {
        // Jayway: a filter on an object tests the object itself.
        const hit = JSONPath({ path: `$[${part.script}]`, json: [node], wrap: true, eval: 'safe' }) as Json[];
        if (hit.length > 0) next.push(node);
      }
    }
    nodes = next;
    if (nodes.length === 0) break;
  }
  return nodes;
}

export function jsonPathMatches(path: CompiledJsonPath, json: Json): boolean {
  return jsonPathQuery(path, json).length > 0;
}
