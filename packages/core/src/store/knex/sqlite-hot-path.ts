import type { NodeRun } from "../../model/run.js";
import { claimHolds, claimsOf, withoutRuns } from "../fence.js";
import {
  CLAIMED_AT_INSERT_EPOCH,
  type NewRun,
  type PipelineStore,
  type RunStore,
  type RunTransition,
  type UserStore,
} from "../ports.js";
import { outputDataJson } from "../output-data.js";
import { pipelineFromRow } from "./pipeline-store.js";
import { INSERT_CHUNK } from "./rows.js";
import { ATTEMPTED, claimedRuns, nodeRunFromRow, RUN_COLUMNS, runFromRow } from "./run-store.js";
import type { Prepare, SqliteStatements } from "./sqlite-statements.js";
import { eventsOfMoved } from "../transition-events.js";
import { userFromRow } from "./user-store.js";

type DbRow = Record<string, unknown>;

const SELECT_RUN = `select ${RUN_COLUMNS.join(", ")} from runs where id = ?`;
const INSERT_RUN =
  "insert into runs (id, pipeline_id, status, trigger, params, error, created_at, started_at, finished_at, owner, " +
  "heartbeat_at, epoch, schedule_slot) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
/**
 * One UPDATE … RETURNING is atomic (a read-then-write transaction could not upgrade its lock). The runs it moves are
 * found by their ids (`+status`: not by the status index, which would visit every pending run to test it against the
 * list), and the list by the claim-order index (migration 011).
 */
export const CLAIM =
  "update runs set status = 'running', owner = ?, epoch = epoch + 1, heartbeat_at = ?, started_at = ?, " +
  "finished_at = null, error = null " +
  "where +status = 'pending' and id in (select id from runs where status = 'pending' order by created_at, id limit ?) " +
  `returning ${RUN_COLUMNS.join(", ")}, epoch, ${ATTEMPTED}`;
const SELECT_CLAIM = "select status, owner, epoch from runs where id = ?";
const INSERT_EVENTS = "insert into run_events (run_id, origin, body, created_at)";
const UPSERT_NODE_RUN =
  "insert into node_runs (id, run_id, node_id, status, attempt, row_count, duration_ms, started_at, finished_at, " +
  "error) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (id) do update set status = excluded.status, " +
  "attempt = excluded.attempt, row_count = excluded.row_count, duration_ms = excluded.duration_ms, " +
  "started_at = excluded.started_at, finished_at = excluded.finished_at, error = excluded.error";
const INSERT_LOGS = "insert into run_logs (run_id, node_id, level, message, timestamp)";
const UPSERT_OUTPUT =
  "insert into node_outputs (run_id, node_id, kind, data, created_at) values (?, ?, ?, ?, ?) " +
  "on conflict (run_id, node_id, kind) do update set data = excluded.data, created_at = excluded.created_at";
const SELECT_NODE_RUNS = "select * from node_runs where run_id = ? order by id";
const SELECT_PIPELINE = "select * from pipelines where id = ?";
const SELECT_USER = "select * from users where id = ?";

/**
 * Inserts `rows` (equal-length value lists) as `{head} values (…), (…){tail}`, INSERT_CHUNK rows a statement (each
 * chunk length prepared once per connection); returns what `tail` (a RETURNING clause) returns.
 */
function insertMany(prepare: Prepare, head: string, rows: unknown[][], tail = ""): DbRow[] {
  const returned: DbRow[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const tuple = `(${Array(chunk[0]!.length).fill("?").join(", ")})`;
    const statement = prepare(`${head} values ${Array(chunk.length).fill(tuple).join(", ")}${tail}`);
    if (tail) returned.push(...(statement.all(chunk.flat()) as DbRow[]));
    else statement.run(chunk.flat());
  }
  return returned;
}

/** Field names a transition may set (RunTransition["fields"]): the only text that reaches its SQL. */
const TRANSITION_FIELDS = new Set(["error", "started_at", "finished_at", "owner"]);

/**
 * The SQLite run store: the statements of every run (queue, claim, state writes, finish, read back) through
 * cached prepared statements ({@link SqliteStatements}); everything else as the knex store does it.
 */
export function sqliteRunStore(base: RunStore, sqlite: SqliteStatements): RunStore {
  return {
    ...base,

    insert: (runs) => sqlite.transaction((prepare) => insertRuns(prepare, runs)),

    get: (id) =>
      sqlite.use((prepare) => {
        const row = prepare(SELECT_RUN).get(id) as DbRow | undefined;
        return row ? runFromRow(row) : null;
      }),

    claimPending: (owner, limit, nowIso) =>
      sqlite.use((prepare) => claimedRuns(prepare(CLAIM).all(owner, nowIso, nowIso, limit) as DbRow[], owner)),

    transition: (id, from, to, fields = {}, claim) =>
      sqlite.use((prepare) => applyTransition(prepare, { id, from, to, fields, claim })),

    writeBatch: (batch) =>
      sqlite.transaction((prepare) => {
        const selectClaim = prepare(SELECT_CLAIM);
        const refused = new Set<string>();
        for (const [id, claim] of claimsOf(batch)) {
          const row = selectClaim.get(id) as DbRow | undefined;
          if (!row || !claimHolds(claim, row)) refused.add(id);
        }
        const { runs = [], nodeRuns, logs, outputs, transitions = [], events = [] } = withoutRuns(batch, refused);
        insertRuns(prepare, runs);
        // one node run can appear several times in a batch (running, then success): keep the last state
        const latest = new Map<string, NodeRun>();
        for (const nr of nodeRuns) latest.set(nr.id, nr);
        const upsertNodeRun = prepare(UPSERT_NODE_RUN);
        for (const nr of latest.values()) {
          upsertNodeRun.run(
            nr.id,
            nr.run_id,
            nr.node_id,
            nr.status,
            nr.attempt,
            nr.row_count,
            nr.duration_ms,
            nr.started_at,
            nr.finished_at,
            nr.error,
          );
        }
        insertMany(
          prepare,
          INSERT_LOGS,
          logs.map((l) => [l.run_id, l.node_id, l.level, l.message, l.timestamp]),
        );
        const upsertOutput = prepare(UPSERT_OUTPUT);
        const createdAt = new Date().toISOString();
        for (const o of outputs) upsertOutput.run(o.run_id, o.node_id, o.kind, outputDataJson(o.data), createdAt);
        const moved = transitions.filter((t) => applyTransition(prepare, t)).map((t) => t.id);
        const appended = [...events, ...eventsOfMoved(transitions, moved)];
        // AUTOINCREMENT numbers each row above every number before it, in the order VALUES lists them; the order of
        // RETURNING's rows is not documented, so the numbers are sorted back into that order
        const seqs = insertMany(
          prepare,
          INSERT_EVENTS,
          appended.map((e) => [e.event.run_id, e.origin, e.body, createdAt]),
          " returning seq",
        )
          .map((row) => Number(row.seq))
          .sort((a, b) => a - b);
        return { moved, seqs, refused: [...refused] };
      }),

    nodeRuns: (runId) => sqlite.use((prepare) => (prepare(SELECT_NODE_RUNS).all(runId) as DbRow[]).map(nodeRunFromRow)),
  };
}

/** Reads one row by id through the cached statement `sql` (`… where id = ?`), converted by `fromRow`. */
const byId =
  <T>(sqlite: SqliteStatements, sql: string, fromRow: (row: DbRow) => T) =>
  (id: string): Promise<T | null> =>
    sqlite.use((prepare) => {
      const row = prepare(sql).get(id) as DbRow | undefined;
      return row ? fromRow(row) : null;
    });

/** The SQLite pipeline store: reading a pipeline (every trigger does) through a cached prepared statement. */
export function sqlitePipelineStore(base: PipelineStore, sqlite: SqliteStatements): PipelineStore {
  return { ...base, get: byId(sqlite, SELECT_PIPELINE, pipelineFromRow) };
}

/** The SQLite user store: reading a user by id (every request with a user's token does) through a cached statement. */
export function sqliteUserStore(base: UserStore, sqlite: SqliteStatements): UserStore {
  return { ...base, getById: byId(sqlite, SELECT_USER, userFromRow) };
}

/** Inserts just-queued runs; `scheduleSlot` marks them as the runs of that slot (see SchedulerStateStore.claimSlot). */
export function insertRuns(prepare: Prepare, runs: readonly NewRun[], scheduleSlot: string | null = null): void {
  const insert = prepare(INSERT_RUN);
  for (const r of runs) {
    insert.run(
      r.id,
      r.pipeline_id,
      r.status,
      r.trigger,
      JSON.stringify(r.params),
      r.error,
      r.created_at,
      r.started_at,
      r.finished_at,
      r.owner ?? null,
      r.owner ? r.started_at : null,
      r.owner ? CLAIMED_AT_INSERT_EPOCH : 0,
      scheduleSlot,
    );
  }
}

/**
 * `update runs set status = ?, <fields> where id = ? and status in (<from>)` (and, for a claim, `and owner = ? and
 * epoch = ?`); whether the run moved.
 */
function applyTransition(prepare: Prepare, { id, from, to, fields, claim }: RunTransition): boolean {
  const names = Object.keys(fields).filter((name) => TRANSITION_FIELDS.has(name));
  const sets = ["status = ?", ...names.map((name) => `${name} = ?`)].join(", ");
  const fenced = claim ? " and owner = ? and epoch = ?" : "";
  const sql = `update runs set ${sets} where id = ? and status in (${from.map(() => "?").join(", ")})${fenced}`;
  const values = names.map((name) => fields[name as keyof RunTransition["fields"]] ?? null);
  const fence = claim ? [claim.owner, claim.epoch] : [];
  return prepare(sql).run(to, ...values, id, ...from, ...fence).changes > 0;
}
