import type { Pipeline } from "../model/pipeline.js";
import type { Impact, ImpactEntry } from "../model/insights.js";
import type { NodeTypeRegistry } from "../engine/node-type.js";
import { NODE_TYPE_REGISTRY } from "../engine/nodes/index.js";
import { nodeReferences } from "./node-references.js";

export type { Impact, ImpactEntry };

const key = (conn: string, table: string) => `${conn}\u0000${table}`;

/**
 * Pipelines affected when `rootId` changes or fails: those that depend on it (depends_on) and those that read a
 * table it writes (same connection and table name), transitively, each listed once at its smallest depth.
 */
export function computeImpact(
  rootId: string,
  pipelines: readonly Pipeline[],
  registry: NodeTypeRegistry = NODE_TYPE_REGISTRY,
): Impact {
  const byId = new Map(pipelines.map((p) => [p.id, p]));
  const readers = new Map<string, Set<string>>();
  const writes = new Map<string, { conn: string; table: string }[]>();
  for (const p of pipelines) {
    const written: { conn: string; table: string }[] = [];
    for (const n of p.nodes) {
      const r = nodeReferences(n, registry);
      for (const t of r.tablesRead) {
        const k = key(t.conn_id, t.table);
        if (!readers.has(k)) readers.set(k, new Set());
        readers.get(k)?.add(p.id);
      }
      for (const t of r.tablesWritten) written.push({ conn: t.conn_id, table: t.table });
    }
    writes.set(p.id, written);
  }

  const seen = new Set([rootId]);
  const downstream: ImpactEntry[] = [];
  let frontier = [rootId];
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const upstreamId of frontier) {
      const add = (id: string, via: ImpactEntry["via"], detail: string) => {
        const p = byId.get(id);
        if (!p || seen.has(id)) return;
        seen.add(id);
        downstream.push({ pipeline_id: id, name: p.name, depth, via, detail });
        next.push(id);
      };
      for (const p of pipelines) if (p.depends_on.includes(upstreamId)) add(p.id, "depends_on", upstreamId);
      for (const w of writes.get(upstreamId) ?? []) {
        for (const reader of readers.get(key(w.conn, w.table)) ?? []) {
          add(reader, "table", w.conn ? `${w.conn}.${w.table}` : w.table);
        }
      }
    }
    frontier = next;
  }
  return { pipeline_id: rootId, downstream };
}
