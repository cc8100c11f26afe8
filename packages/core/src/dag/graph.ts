import type { Edge } from "../model/node.js";

export interface GraphShape {
  nodeIds: readonly string[];
  edges: readonly Edge[];
}

export interface Adjacency {
  upstream: Map<string, string[]>;
  downstream: Map<string, string[]>;
}

/** Upstream and downstream lists per node, in edge order; edges to unknown nodes are ignored. */
export function buildAdjacency({ nodeIds, edges }: GraphShape): Adjacency {
  const upstream = new Map<string, string[]>(nodeIds.map((id) => [id, []]));
  const downstream = new Map<string, string[]>(nodeIds.map((id) => [id, []]));
  for (const { from, to } of edges) {
    const ups = upstream.get(to);
    const downs = downstream.get(from);
    if (!ups || !downs) continue;
    ups.push(from);
    downs.push(to);
  }
  return { upstream, downstream };
}

export type WavesResult = { ok: true; waves: string[][] } | { ok: false; cycle: string[] };

/**
 * Topological waves (Kahn's algorithm by levels): every node of wave k has all of its upstream nodes in waves < k.
 * Within a wave nodes keep their declaration order. On a cycle, returns the nodes that could not be ordered.
 */
export function topologicalWaves(shape: GraphShape): WavesResult {
  const { upstream, downstream } = buildAdjacency(shape);
  const remaining = new Map<string, number>();
  for (const id of shape.nodeIds) remaining.set(id, new Set(upstream.get(id)).size);
  const waves: string[][] = [];
  let current = shape.nodeIds.filter((id) => remaining.get(id) === 0);
  let placed = 0;
  const seen = new Set<string>();
  while (current.length > 0) {
    waves.push(current);
    placed += current.length;
    for (const id of current) seen.add(id);
    const next: string[] = [];
    for (const id of current) {
      for (const down of new Set(downstream.get(id))) {
        const left = (remaining.get(down) ?? 0) - 1;
        remaining.set(down, left);
        if (left === 0) next.push(down);
      }
    }
    const order = new Map(shape.nodeIds.map((id, i) => [id, i]));
    current = next.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  }
  if (placed < new Set(shape.nodeIds).size) {
    return { ok: false, cycle: shape.nodeIds.filter((id) => !seen.has(id)) };
  }
  return { ok: true, waves };
}

/** Every node reachable downstream of `start` (not including it). */
export function descendants(adjacency: Adjacency, start: string): Set<string> {
  const out = new Set<string>();
  const stack = [...(adjacency.downstream.get(start) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (out.has(id)) continue;
    out.add(id);
    stack.push(...(adjacency.downstream.get(id) ?? []));
  }
  return out;
}
