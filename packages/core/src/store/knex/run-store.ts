import type { Knex } from "knex";
import type { DlqEntry } from "../../model/dlq.js";
import type { LogLevel, NodeRun, NodeRunStatus, Run, RunStatus, RunTrigger } from "../../model/run.js";
import { claimHolds, claimsOf, withoutRuns } from "../fence.js";
import { eventsOfMoved } from "../transition-events.js";
import type { ClaimedRun, RunClaim, RunStateBatch, RunStore } from "../ports.js";
import { ARRAY_INSERT_ROWS, insertRows } from "./array-rows.js";
import { BatchStatements } from "./batch-statements.js";
import { oneStatementBatch } from "./one-statement-batch.js";
import { PgPlanRefresh } from "./pg-plan-refresh.js";
import { PgStatements, pgTemplate, type PgTemplate } from "./pg-statements.js";
import {
  batchRows,
  EVENT_COLUMNS,
  LOG_COLUMNS,
  NODE_RUN_COLUMNS,
  NODE_RUN_UPSERT,
  OUTPUT_COLUMNS,
  OUTPUT_UPSERT,
  runToRow,
  transitionUpdates,
} from "./run-state-rows.js";
import { appendEvents, eventRowChunks, seqsOf } from "./event-log-store.js";
import type { Dialect } from "./dialects/dialect.js";
import { chunksOfSize, countOf, INSERT_CHUNK, parseJson, toBool, toInt, toNullableStr, toStr } from "./rows.js";

type DbRow = Record<string, unknown>;

/** Selected with a claimed run: whether it has node runs of an earlier attempt. */
export const ATTEMPTED = "exists (select 1 from node_runs where node_runs.run_id = runs.id) as attempted";

/** The claim's prepared statement (PostgreSQL), and the markers its parameters are compiled with (pg-statements.ts). */
const CLAIM_STATEMENT = "sluice_claim";
const CLAIM_MARKERS = { owner: "\u0000claim owner", now: "\u0000claim now", limit: 2_147_483_001 } as const;

export const RUN_COLUMNS = [
  "id",
  "pipeline_id",
  "status",
  "trigger",
  "params",
  "error",
  "created_at",
  "started_at",
  "finished_at",
];

export function runFromRow(row: DbRow): Run {
  return {
    id: toStr(row.id),
    pipeline_id: toStr(row.pipeline_id),
    status: toStr(row.status) as RunStatus,
    trigger: toStr(row.trigger) as RunTrigger,
    params: parseJson<Record<string, string>>(row.params, {}),
    error: toNullableStr(row.error),
    created_at: toStr(row.created_at),
    started_at: toNullableStr(row.started_at),
    finished_at: toNullableStr(row.finished_at),
  };
}

/** UTF-16 code-unit order, as the claim orders these fixed-format ISO times and ids (no locale: see claimedRuns). */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The runs a claim by `owner` returned (their claim columns included), in claim order: oldest first, then by id.
 * Compared by code units, not `localeCompare`: a process's first `localeCompare` loads ICU's collator, 9 ms on the
 * server's thread at its first claim.
 */
export function claimedRuns(rows: DbRow[], owner: string): ClaimedRun[] {
  return rows
    .map((row): ClaimedRun => ({
      ...runFromRow(row),
      owner,
      epoch: toInt(row.epoch),
      attempted: toBool(row.attempted),
    }))
    .sort((x, y) => byCodeUnits(x.created_at, y.created_at) || byCodeUnits(x.id, y.id));
}

export function nodeRunFromRow(row: DbRow): NodeRun {
  return {
    id: toStr(row.id),
    run_id: toStr(row.run_id),
    node_id: toStr(row.node_id),
    status: toStr(row.status) as NodeRunStatus,
    attempt: toInt(row.attempt),
    row_count: toInt(row.row_count),
    duration_ms: toInt(row.duration_ms),
    started_at: toNullableStr(row.started_at),
    finished_at: toNullableStr(row.finished_at),
    error: toNullableStr(row.error),
  };
}

function dlqFromRow(row: DbRow): DlqEntry {
  return {
    id: toStr(row.id),
    pipeline_id: toStr(row.pipeline_id),
    run_id: toStr(row.run_id),
    node_id: toStr(row.node_id),
    node_name: toStr(row.node_name),
    error: toStr(row.error),
    payload: parseJson<unknown>(row.payload, null),
    created_at: toStr(row.created_at),
    resolved: toBool(row.resolved),
    resolved_at: toNullableStr(row.resolved_at),
  };
}

async function insertChunked(db: Knex | Knex.Transaction, table: string, rows: readonly DbRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await db(table).insert(rows.slice(i, i + INSERT_CHUNK));
}

export function createRunStore(knex: Knex, dialect: Dialect): RunStore {
  /**
   * Adds the writes of a run-state batch to `statements` (run on the batch's transaction or, for a batch that is one
   * statement, the database). `moved` (ids of runs whose transition applied) and `seqs` (the events' sequence
   * numbers, in order) are filled as they run; where the database lacks `UPDATE … RETURNING` (MySQL) the transitions
   * and events are written by `after`, once the statements ran.
   *
   * The transitions of a batch that go the same way are one statement (`transitionUpdates`).
   */
  function batchWrites(write: RunStateBatch) {
    const statements = new BatchStatements(dialect.supportsWritableCte);
    const moved: string[] = [];
    const seqs: number[] = [];
    const runs = write.runs ?? [];
    const runRow = (id: string) => `runs:${id}`;
    for (let i = 0; i < runs.length; i += INSERT_CHUNK) {
      const chunk = runs.slice(i, i + INSERT_CHUNK);
      statements.add(knex("runs").insert(chunk.map(runToRow)), { rows: chunk.map((r) => runRow(r.id)) });
    }
    const { nodeRuns: nrRows, logs: logRows, outputs: outputRows } = batchRows(write);
    // rows go as one JSON parameter per statement (PostgreSQL) or as a VALUES list of INSERT_CHUNK rows
    const maxRows = dialect.arrayRows ? ARRAY_INSERT_ROWS : INSERT_CHUNK;
    for (const chunk of chunksOfSize(nrRows, (nr) => nr.error?.length ?? 0, maxRows))
      statements.add(
        insertRows(knex, dialect.arrayRows, "node_runs", NODE_RUN_COLUMNS, chunk, { upsert: NODE_RUN_UPSERT }),
      );
    // log lines are numbered (their ids) in the order given: chunks go in turn, as events do
    for (const chunk of chunksOfSize(logRows, (l) => l.message.length, maxRows))
      statements.add(insertRows(knex, dialect.arrayRows, "run_logs", LOG_COLUMNS, chunk), { ordered: "run_logs" });
    for (const chunk of chunksOfSize(outputRows, (row) => row.data.length, maxRows))
      statements.add(
        insertRows(knex, dialect.arrayRows, "node_outputs", OUTPUT_COLUMNS, chunk, { upsert: OUTPUT_UPSERT }),
      );
    const transitions = write.transitions ?? [];
    const events = write.events ?? [];
    if (!dialect.supportsUpdateReturning) {
      const after = async (trx: Knex.Transaction) => {
        for (const t of transitions) {
          const changed = await trx("runs")
            .where({ id: t.id })
            .whereIn("status", [...t.from])
            .update({ status: t.to, ...t.fields });
          if (changed > 0) moved.push(t.id);
        }
        seqs.push(...(await appendEvents(trx, dialect, events)));
      };
      return { statements, moved, seqs, after: transitions.length + events.length > 0 ? after : null };
    }
    for (const { update, ids } of transitionUpdates(knex, transitions)) {
      statements.add(update.returning("id"), {
        onRows: (rows) => moved.push(...rows.map((r) => toStr(r.id))),
        rows: ids.map(runRow),
      });
    }
    // the event log numbers rows in the order inserted: each chunk's numbers are kept in order, chunks in turn
    for (const chunk of eventRowChunks(events, maxRows))
      statements.add(insertRows(knex, dialect.arrayRows, "run_events", EVENT_COLUMNS, chunk, { returning: "seq" }), {
        onRows: (rows) => seqs.push(...seqsOf(rows)),
        ordered: "run_events",
      });
    return { statements, moved, seqs, after: null };
  }

  /**
   * The runs of `claims` whose claim no longer holds. Their rows stay locked to the end of the transaction,
   * so no other instance can take them over between this check and the writes it allows.
   */
  async function refusedClaims(trx: Knex.Transaction, claims: ReadonlyMap<string, RunClaim>): Promise<Set<string>> {
    const refused = new Set<string>();
    if (claims.size === 0) return refused;
    const ids = [...claims.keys()];
    const current = new Map<string, DbRow>();
    for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
      const query = trx("runs")
        .select("id", "status", "owner", "epoch")
        .whereIn("id", ids.slice(i, i + INSERT_CHUNK));
      // FOR UPDATE, not FOR SHARE: the batch then updates these rows, and InnoDB deadlocks on upgrading a shared lock
      for (const row of (await (dialect.supportsSkipLocked ? query.forUpdate() : query)) as DbRow[])
        current.set(toStr(row.id), row);
    }
    for (const [id, claim] of claims) {
      const row = current.get(id);
      if (!row || !claimHolds(claim, row)) refused.add(id);
    }
    return refused;
  }

  /** What a claim sets: the run is `running`, owned by `owner` under a new epoch. */
  const claimedFields = (owner: string, nowIso: string) => ({
    status: "running",
    owner,
    epoch: knex.raw("epoch + 1"),
    heartbeat_at: nowIso,
    started_at: nowIso,
    finished_at: null,
    error: null,
  });
  /** The `limit` oldest pending runs' ids (PostgreSQL/MySQL: concurrent executors skip each other's locked rows). */
  const oldestPending = (db: Knex | Knex.Transaction, limit: number) => {
    const pick = db("runs")
      .select("id")
      .where({ status: "pending" })
      .orderBy([{ column: "created_at" }, { column: "id" }])
      .limit(limit);
    return dialect.supportsSkipLocked ? pick.forUpdate().skipLocked() : pick;
  };
  /**
   * The claim as one statement, where the dialect has one (`claimedBy`): one round trip, atomic (on SQLite a
   * read-then-write transaction could not upgrade its lock).
   */
  const claimQuery = (owner: string, limit: number, nowIso: string) =>
    dialect.claimedBy!(knex("runs"), oldestPending(knex, limit))
      // knex's types take column names only; it puts a raw expression into RETURNING as it is
      .update(claimedFields(owner, nowIso), [...RUN_COLUMNS, "epoch", knex.raw(ATTEMPTED)] as unknown as string[]);
  /** PostgreSQL: the statements every run executes go to the driver, compiled once (pg-statements.ts). */
  const direct = dialect.namedStatements ? new PgStatements(knex) : null;
  /** Their plans, made anew as the runs written make the tables grow (pg-plan-refresh.ts). */
  const planRefresh = direct ? new PgPlanRefresh(knex) : null;
  let claimTemplate: PgTemplate<keyof typeof CLAIM_MARKERS> | null = null;

  async function writeRunState(batch: RunStateBatch) {
    const { runs = [], nodeRuns, logs, outputs, transitions = [], events = [] } = batch;
    if (runs.length + nodeRuns.length + logs.length + outputs.length + transitions.length + events.length === 0)
      return { moved: [], seqs: [], refused: [] };
    const claims = claimsOf(batch);
    // PostgreSQL: the claim check, the writes and the ends' events in one prepared statement where they fit
    const one = direct && dialect.arrayRows ? oneStatementBatch(knex, direct, batch, claims) : null;
    if (one) return one();
    // nothing to fence (new runs, events of a claim): the writes are made once, and when they are one statement
    // they need no transaction, which saves two round trips
    const unfenced = claims.size === 0 ? batchWrites(batch) : null;
    const announced = (batch.transitions ?? []).some((t) => t.event);
    if (unfenced && unfenced.statements.statementCount() === 1 && !unfenced.after && !announced) {
      await unfenced.statements.run(knex);
      return { moved: unfenced.moved, seqs: unfenced.seqs, refused: [] };
    }
    return knex.transaction(async (trx) => {
      const refused = await refusedClaims(trx, claims);
      const { statements, moved, seqs, after } = unfenced ?? batchWrites(withoutRuns(batch, refused));
      await statements.run(trx);
      await after?.(trx);
      // the events announcing the moves, once it is known which runs moved
      const ends = eventsOfMoved(transitions, moved);
      if (ends.length > 0) seqs.push(...(await appendEvents(trx, dialect, ends)));
      return { moved, seqs, refused: [...refused] };
    });
  }

  return {
    async insert(runs) {
      await insertChunked(knex, "runs", runs.map(runToRow));
      planRefresh?.runsWritten(runs.length);
    },

    async get(id) {
      const row = (await knex("runs").select(RUN_COLUMNS).where({ id }).first()) as DbRow | undefined;
      return row ? runFromRow(row) : null;
    },

    async listForPipeline(pipelineId, { page, per_page }) {
      const [rows, total] = await Promise.all([
        knex("runs")
          .select(RUN_COLUMNS)
          .where({ pipeline_id: pipelineId })
          .orderBy([
            { column: "created_at", order: "desc" },
            { column: "id", order: "desc" },
          ])
          .limit(per_page)
          .offset((page - 1) * per_page) as Promise<DbRow[]>,
        knex("runs").where({ pipeline_id: pipelineId }).count({ n: "*" }).first() as Promise<DbRow | undefined>,
      ]);
      return { items: rows.map(runFromRow), total: countOf(total) };
    },

    async latest(pipelineId) {
      const row = (await knex("runs")
        .select(RUN_COLUMNS)
        .where({ pipeline_id: pipelineId })
        .orderBy([
          { column: "created_at", order: "desc" },
          { column: "id", order: "desc" },
        ])
        .first()) as DbRow | undefined;
      return row ? runFromRow(row) : null;
    },

    async lastSuccessFinishedAt(pipelineId) {
      const row = (await knex("runs")
        .max({ at: "finished_at" })
        .where({ pipeline_id: pipelineId, status: "success" })
        .first()) as DbRow | undefined;
      return toNullableStr(row?.at);
    },

    async claimPending(owner, limit, nowIso) {
      if (direct) {
        claimTemplate ??= pgTemplate(CLAIM_STATEMENT, CLAIM_MARKERS, (m) =>
          claimQuery(String(m.owner), Number(m.limit), String(m.now)),
        );
        return claimedRuns(
          await direct.rows(claimTemplate.statement, claimTemplate.values({ owner, limit, now: nowIso })),
          owner,
        );
      }
      if (dialect.claimedBy) return claimedRuns((await claimQuery(owner, limit, nowIso)) as unknown as DbRow[], owner);
      const claimed = claimedFields(owner, nowIso);
      return knex.transaction(async (trx) => {
        const ids = ((await oldestPending(trx, limit)) as DbRow[]).map((r) => toStr(r.id));
        if (ids.length === 0) return [];
        await trx("runs").whereIn("id", ids).where({ status: "pending" }).update(claimed);
        const rows = (await trx("runs")
          .select([...RUN_COLUMNS, "epoch", trx.raw(ATTEMPTED)])
          .whereIn("id", ids)
          .where({ status: "running", owner })) as DbRow[];
        return claimedRuns(rows, owner);
      });
    },

    async heartbeat(owner, runIds, nowIso) {
      if (runIds.length === 0) return [];
      // a cancelled run's executor is still finishing its nodes: it stays the owner (store/fence.ts)
      const scope = (q: Knex.QueryBuilder) =>
        q
          .whereIn("id", [...runIds])
          .where({ owner })
          .whereIn("status", ["running", "cancelled"]);
      if (dialect.supportsUpdateReturning) {
        const rows = (await scope(knex("runs")).update({ heartbeat_at: nowIso }, ["id"])) as unknown as DbRow[];
        return rows.map((r) => toStr(r.id));
      }
      return knex.transaction(async (trx) => {
        await scope(trx("runs")).update({ heartbeat_at: nowIso });
        return ((await scope(trx("runs").select("id"))) as DbRow[]).map((r) => toStr(r.id));
      });
    },

    async runningOwners() {
      const rows = (await knex("runs")
        .select("owner")
        .max({ heartbeat_at: "heartbeat_at" })
        .where({ status: "running" })
        .groupBy("owner")) as DbRow[];
      return rows.map((r) => ({ owner: toNullableStr(r.owner), heartbeat_at: toNullableStr(r.heartbeat_at) }));
    },

    async failRunsOfOwners(owners, error, nowIso, staleBefore) {
      if (owners.length === 0) return [];
      const named = owners.filter((o): o is string => o !== null);
      const withNull = owners.includes(null);
      return knex.transaction(async (trx) => {
        const scope = (q: Knex.QueryBuilder) =>
          q
            .where({ status: "running" })
            .where((w) => {
              if (named.length > 0) w.whereIn("owner", named);
              if (withNull) w.orWhereNull("owner");
            })
            .where((w) => {
              if (staleBefore !== undefined) w.where("heartbeat_at", "<", staleBefore);
            });
        // locked: of two instances failing the same dead owner's runs at once, one gets them, the other none
        const select = scope(trx("runs").select(RUN_COLUMNS));
        const rows = (await (dialect.supportsSkipLocked ? select.forUpdate() : select)) as DbRow[];
        if (rows.length === 0) return [];
        const ids = rows.map((r) => toStr(r.id));
        await trx("runs")
          .whereIn("id", ids)
          .where({ status: "running" })
          .update({ status: "failed", error, finished_at: nowIso, owner: null });
        await trx("node_runs")
          .whereIn("run_id", ids)
          .where({ status: "running" })
          .update({ status: "failed", error, finished_at: nowIso });
        return rows.map((r) => ({ ...runFromRow(r), status: "failed" as const, error, finished_at: nowIso }));
      });
    },

    async transition(id, from, to, fields = {}, claim) {
      const query = knex("runs")
        .where({ id })
        .whereIn("status", [...from]);
      if (claim) query.where({ owner: claim.owner, epoch: claim.epoch });
      return (await query.update({ status: to, ...fields })) > 0;
    },

    async writeBatch(batch) {
      const result = await writeRunState(batch);
      planRefresh?.runsWritten(batch.runs?.length ?? 0);
      return result;
    },

    async nodeRuns(runId) {
      // ids are time-ordered and created in node declaration order when the run starts
      const rows = (await knex("node_runs").where({ run_id: runId }).orderBy("id")) as DbRow[];
      return rows.map(nodeRunFromRow);
    },

    async nodeRunsOfRuns(runIds) {
      if (runIds.length === 0) return [];
      const rows = (await knex("node_runs")
        .whereIn("run_id", [...runIds])
        .orderBy("id")) as DbRow[];
      return rows.map(nodeRunFromRow);
    },

    async logs(runId, filter: { node_id?: string; level?: LogLevel } = {}) {
      const q = knex("run_logs").select("run_id", "node_id", "level", "message", "timestamp").where({ run_id: runId });
      if (filter.node_id !== undefined) q.where({ node_id: filter.node_id });
      if (filter.level !== undefined) q.where({ level: filter.level });
      const rows = (await q.orderBy("id")) as DbRow[];
      return rows.map((r) => ({
        run_id: toStr(r.run_id),
        node_id: toNullableStr(r.node_id),
        level: toStr(r.level) as LogLevel,
        message: toStr(r.message),
        timestamp: toStr(r.timestamp),
      }));
    },

    async output(runId, nodeId, kind) {
      const row = (await knex("node_outputs")
        .select("data")
        .where({ run_id: runId, node_id: nodeId, kind })
        .first()) as DbRow | undefined;
      return row ? parseJson<unknown>(row.data, null) : null;
    },

    async deleteOutputs(runId, kind) {
      await knex("node_outputs")
        .where({ run_id: runId })
        .andWhere((q) => {
          q.where({ kind });
          if (kind === "output") q.orWhere("kind", "like", "output:%"); // its parts (KeptOutputPartKind)
        })
        .delete();
    },

    async insertDlq(entries) {
      await insertChunked(
        knex,
        "dlq_entries",
        entries.map((e) => ({ ...e, payload: JSON.stringify(e.payload ?? null) })),
      );
    },

    async listDlq(pipelineId, includeResolved, limit, maxPayloadChars) {
      const newestFirst = (q: Knex.QueryBuilder) => {
        q.where({ pipeline_id: pipelineId });
        if (!includeResolved) q.where({ resolved: false });
        return q.orderBy([
          { column: "created_at", order: "desc" },
          { column: "id", order: "desc" },
        ]);
      };
      // the sizes first (MySQL's length counts bytes: at least the characters), then the entries that fit
      const sizes = (await newestFirst(knex("dlq_entries").select("id", knex.raw("length(payload) as size"))).limit(
        limit,
      )) as DbRow[];
      const ids: string[] = [];
      let chars = 0;
      for (const row of sizes) {
        chars += Number(row.size);
        if (ids.length > 0 && chars > maxPayloadChars) break;
        ids.push(String(row.id));
      }
      if (ids.length === 0) return [];
      const rows = (await newestFirst(knex("dlq_entries").select("*")).whereIn("id", ids)) as DbRow[];
      return rows.map(dlqFromRow);
    },

    async resolveDlq(pipelineId, id, nowIso) {
      const found = (await knex("dlq_entries").select("resolved").where({ pipeline_id: pipelineId, id }).first()) as
        DbRow | undefined;
      if (!found) return false;
      if (!toBool(found.resolved)) {
        await knex("dlq_entries")
          .where({ pipeline_id: pipelineId, id })
          .update({ resolved: true, resolved_at: nowIso });
      }
      return true;
    },
  };
}
