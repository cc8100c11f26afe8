import type { Knex } from "knex";
import type { RunClaim, RunStateBatch, RunStateBatchResult } from "../ports.js";
import { ARRAY_INSERT_ROWS, fitsJsonParameter, insertRows, jsonRowsParameter } from "./array-rows.js";
import { MAX_BINDINGS } from "./batch-statements.js";
import { eventRowChunks, seqsOf } from "./event-log-store.js";
import { INSERT_CHUNK, STATEMENT_BYTES, toStr } from "./rows.js";
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

type DbRow = Record<string, unknown>;

/** Claimed runs, as the statement's JSON parameter reads them. */
const CLAIMS = "jsonb_to_recordset(?::jsonb) as c(id text, owner text, epoch bigint)";

/**
 * A run-state batch as one statement (PostgreSQL): the claim check, every write, and the events announcing the ends
 * of the runs that moved, in one round trip and the statement's own transaction. The same batch otherwise costs five
 * round trips (`BEGIN`, the claim check, the writes, the ends' events, `COMMIT`), and while the event loop is busy
 * running nodes, each waits for the loop to come back to it.
 *
 * The parts, all `WITH` queries of one statement:
 * - `held`: the claimed runs' rows, locked (`FOR UPDATE`) until the statement commits, as the separate check locks
 *   them until its transaction does; `refused`: the claimed runs whose claim no longer holds (`claimHolds`);
 * - the new runs, node runs, log lines and outputs, the last three without the refused runs' rows;
 * - the transitions (`u0`, `u1`, …), not of refused runs; `moved`: the runs they moved;
 * - the events, the refused runs' left out, then those of the moved runs' ends: one insert numbers them in that order.
 *
 * Null when the batch does not fit one statement that way; it then goes as a transaction of several statements:
 * - more rows, bytes or bound values than one statement holds, or a value too long for `jsonb`;
 * - a run inserted by the batch and also moved or claimed in it, or moved twice: the parts of one statement see one
 *   snapshot, not one another's writes.
 */
export function oneStatementBatch(
  knex: Knex,
  batch: RunStateBatch,
  claims: ReadonlyMap<string, RunClaim>,
): (() => Promise<RunStateBatchResult>) | null {
  const runs = batch.runs ?? [];
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
  const tables = [rows.nodeRuns, rows.logs, rows.outputs, events, ends];
  if (moreEvents.length + moreEnds.length > 0 || runs.length > INSERT_CHUNK) return null;
  if (tables.some((t) => t.length > ARRAY_INSERT_ROWS || !fitsJsonParameter(t))) return null;
  if (tables.reduce((sum, t) => sum + stringBytes(t), stringBytes(runs)) > STATEMENT_BYTES) return null;

  const parts: { name: string; sql: Knex.Sql; materialized: boolean }[] = [];
  const add = (name: string, query: Knex.QueryBuilder | Knex.Raw, materialized = false) =>
    parts.push({ name, sql: query.toSQL(), materialized });
  const claimed = JSON.stringify([...claims].map(([id, c]) => ({ id, owner: c.owner, epoch: c.epoch })));
  // locked in id order, as the heartbeat and a takeover lock them (a plan's hash order could deadlock with them)
  add(
    "held",
    knex.raw(
      `select id, status, owner, epoch from runs where id = any(array(select c.id from ${CLAIMS})) ` +
        `order by id for update of runs`,
      [claimed],
    ),
    true,
  );
  add(
    "refused",
    knex.raw(
      `select c.id from ${CLAIMS} left join held h on h.id = c.id where h.id is null ` +
        `or h.status not in ('running', 'cancelled') or h.owner is distinct from c.owner ` +
        `or h.epoch is distinct from c.epoch`,
      [claimed],
    ),
    true,
  );
  if (runs.length > 0) add("new_runs", knex("runs").insert(runs.map(runToRow)));
  const except = { exceptRunsIn: "refused" };
  if (rows.nodeRuns.length > 0)
    add(
      "node_runs",
      insertRows(knex, true, "node_runs", NODE_RUN_COLUMNS, rows.nodeRuns, { ...except, upsert: NODE_RUN_UPSERT }),
    );
  if (rows.logs.length > 0) add("logs", insertRows(knex, true, "run_logs", LOG_COLUMNS, rows.logs, except));
  if (rows.outputs.length > 0)
    add(
      "outputs",
      insertRows(knex, true, "node_outputs", OUTPUT_COLUMNS, rows.outputs, { ...except, upsert: OUTPUT_UPSERT }),
    );
  const updates = transitionUpdates(knex, transitions).map(({ update }, i) => {
    add(`u${i}`, update.whereRaw("id not in (select id from refused)").returning("id"));
    return `select id from u${i}`;
  });
  add("moved", knex.raw(updates.length > 0 ? updates.join(" union all ") : "select null::text as id where false"));
  const values = EVENT_COLUMNS.map((_, i) => `e.v->>${i}`).join(", ");
  const runId = EVENT_COLUMNS.findIndex(([name]) => name === "run_id");
  add(
    "events",
    knex.raw(
      `insert into "run_events" (${EVENT_COLUMNS.map(([name]) => `"${name}"`).join(", ")}) select ${values} from (` +
        `select r.v, r.n from jsonb_array_elements(?::jsonb) with ordinality as r(v, n) ` +
        `where not exists (select 1 from refused x where x.id = r.v->>${runId}) ` +
        `union all select r.v, r.n + ? from jsonb_array_elements(?::jsonb) with ordinality as r(v, n) ` +
        `where r.v->>${runId} in (select id from moved)) e order by e.n returning "seq"`,
      [jsonRowsParameter(EVENT_COLUMNS, events), events.length, jsonRowsParameter(EVENT_COLUMNS, ends)],
    ),
  );
  const sql =
    `with ${parts.map((p) => `${p.name} as${p.materialized ? " materialized" : ""} (${p.sql.sql})`).join(", ")} ` +
    `select 'refused' as k, id as v from refused union all select 'moved', id from moved ` +
    `union all select 'seq', seq::text from events`;
  const bindings = parts.flatMap((p) => p.sql.bindings);
  if (bindings.length > MAX_BINDINGS) return null;
  return async () => {
    const { rows: result } = (await knex.raw(sql, bindings)) as { rows: DbRow[] };
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
