// A database with a past: before a benchmark measures, `fillHistory` gives its server's database the finished runs a
// server that has been in use for months holds (runs are kept until an admin purges them), so the hot path is
// measured against large tables and indexes, not only against an empty database.
import { mmm, pgQuery } from "./serve.mjs";

/** Seconds between two runs of the history: 200,000 runs reach back about 90 days. */
const SPACING_S = 39;

/** The pipeline whose runs are copied: one `transform` over no input (a job's history; its previews are small). */
const HISTORY_PIPELINE = {
  name: "bench history: one transform",
  nodes: [{ id: "clean", type: "transform", config: { rules: [{ type: "add_column", name: "n", expression: "1" }] } }],
  edges: [],
};

/**
 * Gives the database of a running server (`db`: the SQLite file or the PostgreSQL URL it was started with) `runs`
 * finished runs of a pipeline of their own, one every 39 s back from now, each with its node run, log line, preview
 * and profile: copies, under new ids, of a run made through the API (`http`), so every row has the shape the server
 * writes. On PostgreSQL the tables are then analyzed, as autovacuum would have done long before; SQLite's planner
 * works without statistics, and Sluice gathers none. Returns the time the filling took (ms).
 */
export async function fillHistory({ http, db, runs }) {
  const t0 = Date.now();
  const pipeline = await http.post("/api/pipelines", HISTORY_PIPELINE);
  const { id } = await http.post(`/api/pipelines/${pipeline.id}/run`, { params: {} });
  for (let i = 0; ; i++) {
    const run = await http.get(`/api/runs/${id}`);
    if (run.status === "success") break;
    if (run.status !== "running" && run.status !== "pending") throw new Error(`history run ${id} ended ${run.status}`);
    if (i > 500) throw new Error(`history run ${id} did not finish`);
    await new Promise((r) => setTimeout(r, 10));
  }
  // a copy's id: 'h', its number (8 digits) and the rest of the template's id: as long as the template's
  const pg = db.startsWith("postgres");
  const copyId = (column) =>
    pg ? `'h' || lpad(g::text, 8, '0') || substr(${column}, 10)` : `'h' || printf('%08d', g) || substr(${column}, 10)`;
  const at = pg
    ? `to_char((now() at time zone 'utc') - g * interval '${SPACING_S} seconds', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (g * ${SPACING_S}) || ' seconds')`;
  const numbers = pg
    ? `generate_series(1, ${runs}) as s(g)`
    : `(with recursive s(g) as (select 1 union all select g + 1 from s where g < ${runs}) select g from s) as s`;
  const statements = [
    `insert into runs (id, pipeline_id, status, trigger, params, error, created_at, started_at, finished_at, owner, heartbeat_at, epoch)
     select ${copyId("r.id")}, r.pipeline_id, r.status, r.trigger, r.params, r.error, ${at}, ${at}, ${at}, null, null, r.epoch
     from ${numbers}, (select * from runs where id = '${id}') as r`,
    `insert into node_runs (id, run_id, node_id, status, attempt, row_count, duration_ms, started_at, finished_at, error)
     select ${copyId("n.id")}, ${copyId("n.run_id")}, n.node_id, n.status, n.attempt, n.row_count, n.duration_ms, ${at}, ${at}, n.error
     from ${numbers}, (select * from node_runs where run_id = '${id}') as n`,
    `insert into run_logs (run_id, node_id, level, message, timestamp)
     select ${copyId("l.run_id")}, l.node_id, l.level, l.message, ${at}
     from ${numbers}, (select * from run_logs where run_id = '${id}') as l`,
    `insert into node_outputs (run_id, node_id, kind, data, created_at)
     select ${copyId("o.run_id")}, o.node_id, o.kind, o.data, ${at}
     from ${numbers}, (select * from node_outputs where run_id = '${id}') as o`,
  ];
  const count = "select count(*) as n from node_runs where id like 'h%'";
  let copied;
  if (pg) {
    for (const sql of statements) await pgQuery(db, sql);
    await pgQuery(db, "analyze");
    copied = Number((await pgQuery(db, count))[0].n);
  } else {
    const { default: Database } = await import("better-sqlite3");
    const d = new Database(db, { fileMustExist: true });
    try {
      d.pragma("busy_timeout = 5000");
      d.transaction(() => statements.forEach((sql) => d.prepare(sql).run()))();
      copied = Number(d.prepare(count).get().n);
    } finally {
      d.close();
    }
  }
  if (copied !== runs) throw new Error(`history: ${copied} node runs copied, not ${runs}`);
  return Date.now() - t0;
}

/** The report's line on the history's filling, when the repetitions (`results`, each with `historyMs`) had one. */
export function printHistoryFill(results) {
  if (results[0].historyMs === null) return;
  const seconds = results.map((r) => r.historyMs / 1000);
  console.log(`  history filled in ${mmm(seconds, 1, " s")} (min/median/max)`);
}
