import type { Knex } from "knex";
import type { PageRequest } from "../../model/common.js";
import type { Pipeline, PipelineDefinition, PipelineSummary } from "../../model/pipeline.js";
import type { PipelineVersion } from "../../model/version.js";
import type { PipelineStore, VersionNote } from "../ports.js";
import { countOf, parseJson, toBool, toInt, toNullableStr, toStr } from "./rows.js";

type Row = Record<string, unknown>;

function toColumns(p: Pipeline) {
  const { id: _id, created_at: _c, updated_at: _u, ...definition } = p;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    schedule: p.schedule,
    schedule_timezone: p.schedule_timezone,
    enabled: p.enabled,
    tags: JSON.stringify(p.tags),
    node_count: p.nodes.length,
    edge_count: p.edges.length,
    webhook_token: p.webhook_token,
    depends_on: JSON.stringify(p.depends_on),
    depends_on_at: p.updated_at,
    body: JSON.stringify(definition),
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

/** The `depends_on` of a stored definition (`body`): [] where it has none, or is not a definition at all. */
export function dependsOnOfBody(body: unknown): string[] {
  const dependsOn = parseJson<Partial<PipelineDefinition> | null>(body, null)?.depends_on;
  return Array.isArray(dependsOn) ? dependsOn : [];
}

export function pipelineFromRow(row: Row): Pipeline {
  const definition = parseJson<PipelineDefinition>(row.body, {} as PipelineDefinition);
  return {
    id: toStr(row.id),
    ...definition,
    created_at: toStr(row.created_at),
    updated_at: toStr(row.updated_at),
  };
}

function summaryFromRow(row: Row): PipelineSummary {
  return {
    id: toStr(row.id),
    name: toStr(row.name),
    description: toStr(row.description),
    schedule: toNullableStr(row.schedule),
    enabled: toBool(row.enabled),
    tags: parseJson<string[]>(row.tags, []),
    node_count: toInt(row.node_count),
    edge_count: toInt(row.edge_count),
    created_at: toStr(row.created_at),
    updated_at: toStr(row.updated_at),
  };
}

function versionFromRow(row: Row): PipelineVersion {
  return {
    version_id: toStr(row.id),
    version: toInt(row.version),
    message: toStr(row.message),
    created_at: toStr(row.created_at),
  };
}

const SUMMARY_COLUMNS = [
  "id",
  "name",
  "description",
  "schedule",
  "enabled",
  "tags",
  "node_count",
  "edge_count",
  "created_at",
  "updated_at",
];

export function createPipelineStore(knex: Knex): PipelineStore {
  async function addVersion(trx: Knex.Transaction, p: Pipeline, note: VersionNote): Promise<void> {
    const last = (await trx("pipeline_versions").where({ pipeline_id: p.id }).max({ v: "version" }).first()) as
      Row | undefined;
    // the webhook token is a credential, not history: rollback keeps the current one (docs/security.md)
    const { id: _id, created_at: _c, updated_at: _u, webhook_token: _w, ...snapshot } = p;
    await trx("pipeline_versions").insert({
      id: note.version_id,
      pipeline_id: p.id,
      version: toInt(last?.v) + 1,
      message: note.message.slice(0, 255),
      snapshot: JSON.stringify(snapshot),
      created_at: note.created_at,
    });
  }

  /**
   * `rows` (with `id`, `updated_at` and the copy's columns) with their `depends_on` read: the copy (migration 016), or
   * the definition's for a row whose copy is missing or was made for another `updated_at` (written since by a Sluice
   * older than the copy, still running beside a newer one).
   */
  async function withDependsOn(rows: Row[]): Promise<(Row & { depends_on: string[] })[]> {
    const copied = (row: Row) => row.depends_on != null && toStr(row.depends_on_at) === toStr(row.updated_at);
    const stale = rows.filter((row) => !copied(row)).map((row) => toStr(row.id));
    const bodies = new Map<string, unknown>();
    for (let i = 0; i < stale.length; i += 500)
      for (const row of (await knex("pipelines")
        .select("id", "body")
        .whereIn("id", stale.slice(i, i + 500))) as Row[])
        bodies.set(toStr(row.id), row.body);
    return rows.map((row) => ({
      ...row,
      depends_on: copied(row) ? parseJson<string[]>(row.depends_on, []) : dependsOnOfBody(bodies.get(toStr(row.id))),
    }));
  }

  return {
    async insert(p, note) {
      await knex.transaction(async (trx) => {
        await trx("pipelines").insert(toColumns(p));
        await addVersion(trx, p, note);
      });
    },
    async update(p, note) {
      return knex.transaction(async (trx) => {
        const { id: _id, created_at: _c, ...columns } = toColumns(p);
        const changed = await trx("pipelines").where({ id: p.id }).update(columns);
        if (changed === 0) return false;
        await addVersion(trx, p, note);
        return true;
      });
    },
    async get(id) {
      const row = (await knex("pipelines").where({ id }).first()) as Row | undefined;
      return row ? pipelineFromRow(row) : null;
    },
    async list(page?: PageRequest) {
      const totalRow = (await knex("pipelines").count({ n: "*" }).first()) as Row | undefined;
      let query = knex("pipelines")
        .select(SUMMARY_COLUMNS)
        .orderBy([
          { column: "created_at", order: "desc" },
          { column: "id", order: "desc" },
        ]);
      if (page) query = query.limit(page.per_page).offset((page.page - 1) * page.per_page);
      const rows = (await query) as Row[];
      return { items: rows.map(summaryFromRow), total: countOf(totalRow) };
    },
    async delete(id) {
      return knex.transaction(async (trx) => {
        const deleted = await trx("pipelines").where({ id }).delete();
        if (deleted === 0) return false;
        await trx("pipeline_versions").where({ pipeline_id: id }).delete();
        await trx("scheduler_state").where({ pipeline_id: id }).delete();
        await trx("webhook_state").where({ pipeline_id: id }).delete();
        return true;
      });
    },
    async count() {
      return countOf((await knex("pipelines").count({ n: "*" }).first()) as Row | undefined);
    },
    async listVersions(pipelineId) {
      const rows = (await knex("pipeline_versions")
        .select("id", "version", "message", "created_at")
        .where({ pipeline_id: pipelineId })
        .orderBy("version", "desc")) as Row[];
      return rows.map(versionFromRow);
    },
    async getVersion(pipelineId, versionId) {
      const row = (await knex("pipeline_versions").where({ pipeline_id: pipelineId, id: versionId }).first()) as
        Row | undefined;
      if (!row) return null;
      return {
        version: versionFromRow(row),
        snapshot: parseJson<PipelineDefinition>(row.snapshot, {} as PipelineDefinition),
      };
    },
    async listFull() {
      const rows = (await knex("pipelines")
        .select("id", "body", "created_at", "updated_at")
        .orderBy("created_at", "desc")) as Row[];
      return rows.map(pipelineFromRow);
    },
    async listDependencyRefs() {
      const rows = await withDependsOn(
        (await knex("pipelines").select("id", "name", "updated_at", "depends_on_at", "depends_on")) as Row[],
      );
      return rows.map((row) => ({ id: toStr(row.id), name: toStr(row.name), depends_on: row.depends_on }));
    },
    async changeMarker() {
      // every insert and update adds a version row; a delete removes the pipeline and its versions
      const [p, v] = (await Promise.all([
        knex("pipelines").count({ n: "*" }).max({ at: "updated_at" }).first(),
        knex("pipeline_versions").count({ n: "*" }).max({ at: "created_at" }).first(),
      ])) as (Row | undefined)[];
      return [countOf(p), toStr(p?.at ?? ""), countOf(v), toStr(v?.at ?? "")].join("|");
    },
    async listScheduleRefs() {
      // newest first, as the listing: catch-up queues runs in this order, and a dependency's run queued first blocks
      const rows = await withDependsOn(
        (await knex("pipelines")
          .select("id", "name", "schedule", "schedule_timezone", "enabled", "updated_at", "depends_on_at", "depends_on")
          .orderBy([
            { column: "created_at", order: "desc" },
            { column: "id", order: "desc" },
          ])) as Row[],
      );
      return rows.map((row) => ({
        id: toStr(row.id),
        name: toStr(row.name),
        schedule: toNullableStr(row.schedule),
        schedule_timezone: toNullableStr(row.schedule_timezone),
        enabled: toBool(row.enabled),
        depends_on: row.depends_on,
        updated_at: toStr(row.updated_at),
      }));
    },
    async existingIds(ids) {
      if (ids.length === 0) return new Set();
      const rows = (await knex("pipelines")
        .select("id")
        .whereIn("id", [...ids])) as Row[];
      return new Set(rows.map((r) => toStr(r.id)));
    },
  };
}
