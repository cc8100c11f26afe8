import type { Edge, PipelineNode } from "@sluice/client";

/** Nodes in dependency order (upstream first), ties kept in declaration order; nodes in a cycle go last. */
export function topoOrder(nodes: PipelineNode[], edges: Edge[]): PipelineNode[] {
  const indegree = new Map(nodes.map((n) => [n.id, 0]));
  const out = new Map<string, string[]>();
  for (const e of edges) {
    if (!indegree.has(e.from) || !indegree.has(e.to)) continue;
    indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
    out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const position = new Map(nodes.map((n, i) => [n.id, i]));
  let ready = nodes.filter((n) => indegree.get(n.id) === 0).map((n) => n.id);
  const order: PipelineNode[] = [];
  while (ready.length) {
    ready.sort((a, b) => position.get(a)! - position.get(b)!);
    const next: string[] = [];
    for (const id of ready) {
      order.push(byId.get(id)!);
      for (const to of out.get(id) ?? []) {
        const d = (indegree.get(to) ?? 0) - 1;
        indegree.set(to, d);
        if (d === 0) next.push(to);
      }
    }
    ready = next;
  }
  if (order.length < nodes.length) {
    const seen = new Set(order.map((n) => n.id));
    order.push(...nodes.filter((n) => !seen.has(n.id)));
  }
  return order;
}
