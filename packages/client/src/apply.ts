import type { Pipeline, PipelineCreate, PipelineSummary, PipelineUpdate } from "@sluice/core/model";

export interface ApplyResult {
  action: "created" | "updated" | "unchanged";
  pipeline: Pipeline;
  /** Top-level fields that differed (empty when created or unchanged). */
  changes: string[];
}

interface PipelineApi {
  list(): Promise<PipelineSummary[]>;
  get(id: string): Promise<Pipeline>;
  create(pipeline: PipelineCreate): Promise<Pipeline>;
  update(id: string, patch: PipelineUpdate): Promise<Pipeline>;
}

const READ_ONLY = new Set(["id", "created_at", "updated_at", "node_count", "edge_count", "version"]);

/** Stable JSON for comparison: object keys sorted, so key order never counts as a change. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/**
 * Creates the pipeline when no pipeline has its name, else updates only the fields that differ. Idempotent: a
 * second apply of the same definition changes nothing. Fields the definition leaves out are left as they are.
 */
export async function applyPipeline(api: PipelineApi, def: PipelineCreate): Promise<ApplyResult> {
  const matches = (await api.list()).filter((p) => p.name === def.name);
  if (matches.length > 1)
    throw new Error(`several pipelines are named "${def.name}"; rename or delete the extras first`);
  if (matches.length === 0) return { action: "created", pipeline: await api.create(def), changes: [] };
  const current = await api.get(matches[0]!.id);
  const patch: Record<string, unknown> = {};
  for (const [key, wanted] of Object.entries(def)) {
    if (READ_ONLY.has(key) || wanted === undefined) continue;
    const have = (current as unknown as Record<string, unknown>)[key];
    if (canonical(normalise(key, wanted)) !== canonical(normalise(key, have))) patch[key] = wanted;
  }
  const changes = Object.keys(patch);
  if (changes.length === 0) return { action: "unchanged", pipeline: current, changes };
  return { action: "updated", pipeline: await api.update(current.id, patch as PipelineUpdate), changes };
}

/** Fills the defaults the server applies to nodes and hooks, so a definition without them compares equal. */
function normalise(key: string, value: unknown): unknown {
  if (key === "nodes" && Array.isArray(value)) return value.map((n: Record<string, unknown>) => ({ config: {}, ...n }));
  if (key === "hooks" && Array.isArray(value))
    return value.map((h: Record<string, unknown>) => ({ type: "webhook", enabled: true, ...h }));
  return value;
}
