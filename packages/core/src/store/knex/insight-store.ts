import type { Knex } from "knex";
import type { InsightStore, PipelineRunStats, RecentRun, SearchHit } from "../ports.js";
import { withoutUrlSecrets } from "../../engine/secret-scrubber.js";
import { parseJson, toInt, toNullableStr, toStr } from "./rows.js";

type Row = Record<string, unknown>;

/** `%`, `_` and the escape character itself are literal in a search term. */
const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Aggregations over runs, computed in the database (never by loading runs into memory). */
export function createInsightStore(knex: Knex): InsightStore {
  /** `column` of the pipeline `p`'s latest run (by `created_at`, then `id`): one seek of an index each. */
  const latestRunOf = (column: string) =>
    knex("runs as r")
      .select(column)
      .whereRaw("r.pipeline_id = p.id")
      .orderBy([
        { column: "r.created_at", order: "desc" },
        { column: "r.id", order: "desc" },
      ])
      .limit(1);
  return {
    async pipelineRunStats() {
      // Counts come from the (pipeline_id, status) index; the latest run per pipeline is one index seek each.
      const counts = (await knex("runs")
        .select("pipeline_id", "status")
        .count({ n: "*" })
        .groupBy("pipeline_id", "status")) as Row[];
      const latest = (await knex("pipelines as p")
        .select("p.id as pipeline_id")
        .select({ status: latestRunOf("r.status"), created_at: latestRunOf("r.created_at") })) as Row[];
      const stats = new Map<string, PipelineRunStats>();
      for (const r of latest) {
        if (r.created_at == null) continue;
        const id = toStr(r.pipeline_id);
        stats.set(id, {
          pipeline_id: id,
          last_run_status: toStr(r.status),
          last_run_at: toStr(r.created_at),
          runs_total: 0,
          runs_success: 0,
          runs_failed: 0,
        });
      }
      for (const r of counts) {
        const s = stats.get(toStr(r.pipeline_id));
        if (!s) continue;
        const n = toInt(r.n);
        s.runs_total += n;
        if (r.status === "success") s.runs_success += n;
        if (r.status === "failed") s.runs_failed += n;
      }
      return [...stats.values()];
    },
    async latestRuns() {
      const rows = (await knex("pipelines as p")
        .select("p.id as pipeline_id")
        .select({ created_at: latestRunOf("r.created_at") })) as Row[];
      return rows
        .filter((r) => r.created_at != null)
        .map((r) => ({ pipeline_id: toStr(r.pipeline_id), created_at: toStr(r.created_at) }));
    },
    async dailyCounts(sinceIso, pipelineId) {
      const day = knex.raw("substr(created_at, 1, 10)");
      const query = knex("runs")
        .select({ date: day, status: "status" })
        .count({ n: "*" })
        .where("created_at", ">=", sinceIso);
      // one pipeline's runs come from the (pipeline_id, created_at) index
      if (pipelineId !== undefined) query.where("pipeline_id", pipelineId);
      const rows = (await query.groupByRaw("substr(created_at, 1, 10), status")) as Row[];
      return rows.map((r) => ({ date: toStr(r.date), status: toStr(r.status), count: toInt(r.n) }));
    },
    async topFailing(sinceIso, limit) {
      const rows = (await knex("runs as r")
        .join("pipelines as p", "p.id", "r.pipeline_id")
        .select("r.pipeline_id", "p.name")
        .count({ fail_count: "*" })
        .where("r.status", "failed")
        .andWhere("r.created_at", ">=", sinceIso)
        .groupBy("r.pipeline_id", "p.name")
        .orderBy([{ column: "fail_count", order: "desc" }, { column: "r.pipeline_id" }])
        .limit(limit)) as Row[];
      return rows.map((r) => ({
        pipeline_id: toStr(r.pipeline_id),
        name: toStr(r.name),
        fail_count: toInt(r.fail_count),
      }));
    },
    async recentRuns(limit) {
      const rows = (await knex("runs as r")
        .leftJoin("pipelines as p", "p.id", "r.pipeline_id")
        .select(
          "r.id",
          "r.pipeline_id",
          "p.name as pipeline_name",
          "r.status",
          "r.trigger",
          "r.params",
          "r.error",
          "r.created_at",
          "r.started_at",
          "r.finished_at",
        )
        .orderBy([
          { column: "r.created_at", order: "desc" },
          { column: "r.id", order: "desc" },
        ])
        .limit(limit)) as Row[];
      return rows.map((r): RecentRun => ({
        id: toStr(r.id),
        pipeline_id: toStr(r.pipeline_id),
        pipeline_name: toNullableStr(r.pipeline_name),
        status: toStr(r.status) as RecentRun["status"],
        trigger: toStr(r.trigger) as RecentRun["trigger"],
        params: parseJson<Record<string, string>>(r.params, {}),
        error: toNullableStr(r.error),
        created_at: toStr(r.created_at),
        started_at: toNullableStr(r.started_at),
        finished_at: toNullableStr(r.finished_at),
      }));
    },
    async search(q, limit) {
      const pattern = likePattern(q);
      const match = (column: string) => knex.raw("lower(??) like ? escape ?", [column, pattern, "\\"]);
      const pipelines = (await knex("pipelines")
        .select("id", "name", "description")
        .where(match("name"))
        .orWhere(match("description"))
        .orderBy("name")
        .limit(limit)) as Row[];
      // a host is matched as shown, its URL password and secret-named query values masked: search must not tell
      // what they hold (`?q=api_key=a`, `?q=api_key=b`, …), so hosts are filtered here rather than by the database
      const needle = q.toLowerCase();
      const connections = (
        (await knex("connections")
          .select("conn_id", "type", "host")
          .where(match("conn_id"))
          .orWhere(match("host"))
          .orWhere(match("type"))
          .orderBy("conn_id")) as Row[]
      )
        .map((r) => ({ conn_id: toStr(r.conn_id), type: toStr(r.type), host: withoutUrlSecrets(toStr(r.host)) }))
        .filter((r) => [r.conn_id, r.type, r.host].some((v) => v.toLowerCase().includes(needle)))
        .slice(0, limit);
      // Variables match on the key only: values may be secrets and are never searched or returned.
      const variables = (await knex("variables")
        .select("key", "type")
        .where(match("key"))
        .orderBy("key")
        .limit(limit)) as Row[];
      const hits: SearchHit[] = [
        ...pipelines.map((r) => ({
          type: "pipeline" as const,
          id: toStr(r.id),
          name: toStr(r.name),
          description: toStr(r.description),
        })),
        ...connections.map((r) => ({
          type: "connection" as const,
          id: r.conn_id,
          name: r.conn_id,
          description: `${r.type} ${r.host}`.trim(),
        })),
        ...variables.map((r) => ({
          type: "variable" as const,
          id: toStr(r.key),
          name: toStr(r.key),
          description: `${toStr(r.type)} variable`,
        })),
      ];
      return hits.slice(0, limit);
    },
  };
}
