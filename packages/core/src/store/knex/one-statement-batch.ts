import type { Knex } from "knex";
import type { RunClaim, RunStateBatch, RunStateBatchResult, RunTransition } from "../ports.js";
import {
  ARRAY_INSERT_ROWS,
  type ArrayColumn,
  arrayInsertSql,
  fitsJsonParameter,
  jsonRowsParameter,
} from "./array-rows.js";
import { eventRowChunks, seqsOf } from "./event-log-store.js";
import { pgStatement, type PgStatement, type PgStatements } from "./pg-statements.js";
import { STATEMENT_BYTES, toStr } from "./rows.js";
import {
  batchRows,
  EVENT_COLUMNS,
  LOG_COLUMNS,
  NODE_RUN_COLUMNS,
  NODE_RUN_UPSERT,
  OUTPUT_COLUMNS,
  OUTPUT_UPSERT,
  runToRow,
} from "./run-state-rows.js";

/** Claimed runs, as the statement's JSON parameter reads them. */
const CLAIMS = "jsonb_to_recordset(?::jsonb) as c(id text, owner text, epoch bigint)";

/** The columns of a new run's row (`runToRow`). */
const RUN_COLUMNS: readonly ArrayColumn[] = [
  ["id", "text"],
  ["pipeline_id", "text"],
  ["status", "text"],
  ["trigger", "text"],
  ["params", "text"],
  ["error", "text"],
  ["created_at", "text"],
  ["started_at", "text"],
  ["finished_at", "text"],
  ["owner", "text"],
  ["heartbeat_at", "text"],
  ["epoch", "integer"],
];

/** The fields a transition may set besides the status (all of them): each is set only where the transition names it. */
const TRANSITION_FIELDS = Object.keys({
  error: true,
  started_at: true,
  finished_at: true,
  owner: true,
} satisfies Record<keyof RunTransition["fields"], true>);

const EXCEPT_REFUSED = { exceptRunsIn: "refused" };
const runIdOfEvent = EVENT_COLUMNS.findIndex(([name]) => name === "run_id");

/**
 * The statement's parts, all `WITH` queries, each reading its rows from one JSON parameter (its text is the same for
 * every batch):
 * - `held`: the claimed runs' rows, locked (`FOR UPDATE`) until the statement commits, as the separate check locks
 *   them until its transaction does; `refused`: the claimed runs whose claim no longer holds (`claimHolds`);
 * - the new runs, node runs, log lines and outputs, the last three without the refused runs' rows;
 * - `moves`: the transitions, not of refused runs, each only from the states it names; `moved`: the runs they moved;
 * - the events, the refused runs' left out, then those of the moved runs' ends: one insert numbers them in that order.
 */
const PARTS: readonly (readonly [name: string, sql: string, materialized?: boolean])[] = [
  // locked in id order, as the heartbeat and a takeover lock them (a plan's hash order could deadlock with them)
  [
    "held",
    `select id, status, owner, epoch from runs where id = any(array(select c.id from ${CLAIMS})) order by id for update of runs`,
    true,
  ],
  [
    "refused",
    `select c.id from ${CLAIMS} left join held h on h.id = c.id where h.id is null ` +
      `or h.status not in ('running', 'cancelled') or h.owner is distinct from c.owner ` +
      `or h.epoch is distinct from c.epoch`,
    true,
  ],
  ["new_runs", arrayInsertSql("runs", RUN_COLUMNS)],
  ["node_runs", arrayInsertSql("node_runs", NODE_RUN_COLUMNS, { ...EXCEPT_REFUSED, upsert: NODE_RUN_UPSERT })],
  ["logs", arrayInsertSql("run_logs", LOG_COLUMNS, EXCEPT_REFUSED)],
  ["outputs", arrayInsertSql("node_outputs", OUTPUT_COLUMNS, { ...EXCEPT_REFUSED, upsert: OUTPUT_UPSERT })],
  [
    "moves",
    `update runs as r set status = t.v->>'to', ` +
      TRANSITION_FIELDS.map(
        (f) => `"${f}" = case when t.v->'set'->'${f}' is not null then t.v->'set'->>'${f}' else r."${f}" end`,
      ).join(", ") +
      ` from jsonb_array_elements(?::jsonb) as t(v) where r.id = t.v->>'id' ` +
      `and r.status = any(array(select jsonb_array_elements_text(t.v->'from'))) ` +
      `and not exists (select 1 from refused x where x.id = r.id) returning r.id`,
  ],
  [
    "events",
    `insert into "run_events" (${EVENT_COLUMNS.map(([name]) => `"${name}"`).join(", ")}) ` +
      `select ${EVENT_COLUMNS.map((_, i) => `e.v->>${i}`).join(", ")} from (` +
      `select r.v, r.n from jsonb_array_elements(?::jsonb) with ordinality as r(v, n) ` +
      `where not exists (select 1 from refused x where x.id = r.v->>${runIdOfEvent}) ` +
      `union all select r.v, r.n + ? from jsonb_array_elements(?::jsonb) with ordinality as r(v, n) ` +
      `where r.v->>${runIdOfEvent} in (select id from moves)) e order by e.n returning "seq"`,
  ],
];

const BATCH_SQL =
  `with ${PARTS.map(([name, sql, materialized]) => `${name} as${materialized ? " materialized" : ""} (${sql})`).join(", ")} ` +
  `select 'refused' as k, id as v from refused union all select 'moved', id from moves ` +
  `union all select 'seq', seq::text from events`;

/**
 * The statement's name: PostgreSQL parses and plans it once per connection (a plan kept for all batches), where an
 * unnamed statement of this size took 0.3–0.5 ms to parse and 1.1–4.5 ms to plan, every batch.
 */
const BATCH_STATEMENT = "sluice_run_state_batch";
/** BATCH_SQL in PostgreSQL's placeholders, compiled by knex at the first batch (the same for every connection). */
let compiledBatch: PgStatement | null = null;
/** A batch of new runs alone: their insert (`arrayInsertSql`), prepared as BATCH_SQL is. */
const RUNS_INSERT_STATEMENT = "sluice_insert_runs";
let compiledRunsInsert: PgStatement | null = null;

/**
 * A run-state batch as one statement (PostgreSQL), prepared once per connection: the claim check, every write, and
 * the events announcing the ends of the runs that moved, in one round trip and the statement's own transaction. The
 * same batch otherwise costs five round trips (`BEGIN`, the claim check, the writes, the ends' events, `COMMIT`), and
 * while the event loop is busy running nodes, each waits for the loop to come back to it. The parts: PARTS. A batch
 * of new runs alone (a trigger while no run executes) is their insert only, `sluice_insert_runs`. Both statements go
 * to node-postgres through `direct` (pg-statements.ts).
 *
 * Null when the batch does not fit one statement that way; it then goes as a transaction of several statements:
 * - more rows or bytes than one statement holds, or a value too long for `jsonb`;
 * - a run inserted by the batch and also moved or claimed in it, or moved twice: the parts of one statement see one
 *   snapshot, not one another's writes.
 */
export function oneStatementBatch(
  knex: Knex,
  direct: PgStatements,
  batch: RunStateBatch,
  claims: ReadonlyMap<string, RunClaim>,
): (() => Promise<RunStateBatchResult>) | null {
  const runs = (batch.runs ?? []).map(runToRow);
  const transitions = batch.transitions ?? [];
  const inserted = new Set(runs.map((r) => r.id));
  const moving = new Set(transitions.map((t) => t.id));
  if (moving.size < transitions.length || [...moving, ...claims.keys()].some((id) => inserted.has(id))) return null;
  // an end is told apart by its event's run (as eventsOfMoved tells it by its transition's)
  if (transitions.some((t) => t.event && t.event.event.run_id !== t.id)) return null;
  const rows = batchRows(batch);
  const [events = [], ...moreEvents] = eventRowChunks(batch.events ?? [], ARRAY_INSERT_ROWS);
  const [ends = [], ...moreEnds] = eventRowChunks(
    transitions.flatMap((t) => (t.event ? [t.event] : [])),
    ARRAY_INSERT_ROWS,
  );
  const tables = [runs, rows.nodeRuns, rows.logs, rows.outputs, events, ends];
  if (moreEvents.length + moreEnds.length > 0) return null;
  if (tables.some((t) => t.length > ARRAY_INSERT_ROWS || !fitsJsonParameter(t))) return null;
  if (tables.reduce((sum, t) => sum + stringBytes(t), 0) > STATEMENT_BYTES) return null;

  if (claims.size === 0 && transitions.length === 0 && tables.slice(1).every((t) => t.length === 0)) {
    // runs just queued, alone (a trigger while no run executes): their insert, not every part of BATCH_SQL
    const values = [jsonRowsParameter(RUN_COLUMNS, runs)];
    return async () => {
      compiledRunsInsert ??= pgStatement(RUNS_INSERT_STATEMENT, knex.raw(arrayInsertSql("runs", RUN_COLUMNS), values));
      await direct.rows(compiledRunsInsert, values);
      return { refused: [], moved: [], seqs: [] };
    };
  }
  const claimed = JSON.stringify([...claims].map(([id, c]) => ({ id, owner: c.owner, epoch: c.epoch })));
  // a field named with no value is set to null, as transitionUpdates sets it (JSON would leave it out)
  const moves = JSON.stringify(
    transitions.map((t) => ({
      id: t.id,
      to: t.to,
      from: t.from,
      set: Object.fromEntries(Object.entries(t.fields).map(([name, value]) => [name, value ?? null])),
    })),
  );
  const bindings = [
    claimed,
    claimed,
    jsonRowsParameter(RUN_COLUMNS, runs),
    jsonRowsParameter(NODE_RUN_COLUMNS, rows.nodeRuns),
    jsonRowsParameter(LOG_COLUMNS, rows.logs),
    jsonRowsParameter(OUTPUT_COLUMNS, rows.outputs),
    moves,
    jsonRowsParameter(EVENT_COLUMNS, events),
    events.length,
    jsonRowsParameter(EVENT_COLUMNS, ends),
  ];
  return async () => {
    compiledBatch ??= pgStatement(BATCH_STATEMENT, knex.raw(BATCH_SQL, bindings));
    const result = await direct.rows(compiledBatch, bindings);
    const of = (k: string) => result.filter((r) => r.k === k);
    return {
      refused: of("refused").map((r) => toStr(r.v)),
      moved: of("moved").map((r) => toStr(r.v)),
      seqs: seqsOf(of("seq").map((r) => ({ seq: r.v }))),
    };
  };
}

/** Characters of the string values of `rows`: what a statement's size is bounded by (STATEMENT_BYTES). */
const stringBytes = (rows: readonly object[]) =>
  rows.reduce<number>(
    (sum, row) => sum + Object.values(row).reduce<number>((n, v) => n + (typeof v === "string" ? v.length : 0), 0),
    0,
  );
