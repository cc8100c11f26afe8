import type { LineageGraph, LineageNode } from "@sluice/client";
import type { DagEdge, DagNode } from "../../components/graph/DagGraph";

export type LineageKind = LineageNode["type"];

/** The kinds in legend order, with what each stands for. */
export const KINDS: { kind: LineageKind; label: string; hint: string }[] = [
  { kind: "pipeline", label: "Pipeline", hint: "click to open it" },
  { kind: "table", label: "Table", hint: "read or written by SQL nodes" },
  { kind: "file", label: "File", hint: "read or written by file nodes" },
  { kind: "api", label: "API", hint: "called by API nodes" },
  { kind: "connection", label: "Connection", hint: "used by a pipeline" },
  { kind: "variable", label: "Variable", hint: "referenced by a pipeline" },
];

export const pipelineIdOf = (node: Pick<LineageNode, "id" | "type">): string | undefined =>
  node.type === "pipeline" && node.id.startsWith("pipeline:") ? node.id.slice("pipeline:".length) : undefined;

export interface LineageView {
  nodes: DagNode[];
  edges: DagEdge[];
  /** How many nodes match the search (all of them without one). */
  matches: number;
}

function matcher(query: string): (n: LineageNode) => boolean {
  const terms = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return () => true;
  return (n) => {
    const text = `${n.name} ${n.type}`.toLowerCase();
    return terms.every((t) => text.includes(t));
  };
}

/**
 * The graph to draw: hidden kinds removed; with a search, non-matching nodes are faded (`highlight`) or, with
 * `only`, dropped except the direct neighbours of a match (drawn faded, for context).
 */
export function lineageView(
  graph: LineageGraph,
  options: { query: string; hidden: ReadonlySet<string>; only: boolean },
): LineageView {
  const match = matcher(options.query);
  const searching = options.query.trim() !== "";
  const visible = graph.nodes.filter((n) => !options.hidden.has(n.type));
  const visibleIds = new Set(visible.map((n) => n.id));
  const edges = graph.edges.filter((e) => visibleIds.has(e.from) && visibleIds.has(e.to));
  const matched = new Set(visible.filter(match).map((n) => n.id));

  let keep = visibleIds;
  if (searching && options.only) {
    keep = new Set(matched);
    for (const e of edges) {
      if (matched.has(e.from)) keep.add(e.to);
      if (matched.has(e.to)) keep.add(e.from);
    }
  }
  const seen = new Set<string>();
  const dagEdges: DagEdge[] = [];
  for (const e of edges) {
    const key = `${e.from}\u0000${e.to}`;
    if (!keep.has(e.from) || !keep.has(e.to) || seen.has(key)) continue;
    seen.add(key);
    dagEdges.push({ source: e.from, target: e.to });
  }
  const nodes = visible
    .filter((n) => keep.has(n.id))
    .map<DagNode>((n) => ({
      id: n.id,
      label: n.name,
      sublabel: KINDS.find((k) => k.kind === n.type)?.label.toLowerCase() ?? n.type,
      kind: n.type,
      muted: searching && !matched.has(n.id),
    }));
  return { nodes, edges: dagEdges, matches: matched.size };
}

/** The pipelines an input/output node is connected to, by pipeline id, for the details panel. */
export function pipelinesAround(graph: LineageGraph, id: string): { reads: string[]; writes: string[] } {
  const reads = new Set<string>();
  const writes = new Set<string>();
  for (const e of graph.edges) {
    if (e.from === id) reads.add(e.pipeline_id);
    if (e.to === id) writes.add(e.pipeline_id);
  }
  return { reads: [...reads], writes: [...writes] };
}
