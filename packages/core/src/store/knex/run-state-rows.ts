import type { Knex } from "knex";
import type { NodeRun } from "../../model/run.js";
import { outputDataJson } from "../output-data.js";
import { CLAIMED_AT_INSERT_EPOCH, type NewRun, type RunStateBatch, type RunTransition } from "../ports.js";
import type { ArrayColumn, Upsert } from "./array-rows.js";

type DbRow = Record<string, unknown>;

/** A run's row as queued: pending, or claimed already by its `owner` (NewRun). */
export const runToRow = (r: NewRun): DbRow => ({
  ...r,
  params: JSON.stringify(r.params),
  owner: r.owner ?? null,
  heartbeat_at: r.owner ? r.started_at : null,
  epoch: r.owner ? CLAIMED_AT_INSERT_EPOCH : 0,
});

/** The columns of a node run's row; its upsert updates all but the run and node it belongs to. */
export const NODE_RUN_COLUMNS: readonly ArrayColumn[] = [
  ["id", "text"],
  ["run_id", "text"],
  ["node_id", "text"],
  ["status", "text"],
  ["attempt", "integer"],
  ["row_count", "bigint"],
  ["duration_ms", "bigint"],
  ["started_at", "text"],
  ["finished_at", "text"],
  ["error", "text"],
];
export const NODE_RUN_UPSERT: Upsert = {
  key: ["id"],
  update: ["status", "attempt", "row_count", "duration_ms", "started_at", "finished_at", "error"],
};
export const LOG_COLUMNS: readonly ArrayColumn[] = [
  ["run_id", "text"],
  ["node_id", "text"],
  ["level", "text"],
  ["message", "text"],
  ["timestamp", "text"],
];
export const OUTPUT_COLUMNS: readonly ArrayColumn[] = [
  ["run_id", "text"],
  ["node_id", "text"],
  ["kind", "text"],
  ["data", "text"],
  ["created_at", "text"],
];
export const OUTPUT_UPSERT: Upsert = { key: ["run_id", "node_id", "kind"], update: ["data", "created_at"] };
export const EVENT_COLUMNS: readonly ArrayColumn[] = [
  ["run_id", "text"],
  ["origin", "text"],
  ["body", "text"],
  ["created_at", "text"],
];

/**
 * The rows a run-state batch writes: each node run once, in its last state (one appears several times in a batch:
 * running, then success); log lines as given; each output once, the last one given (a key twice in one upsert would
 * make PostgreSQL refuse it), its data as JSON.
 */
export function batchRows(batch: RunStateBatch) {
  const latest = new Map<string, NodeRun>();
  for (const nr of batch.nodeRuns) latest.set(nr.id, nr);
  const createdAt = new Date().toISOString();
  const outputs = new Map<
    string,
    { run_id: string; node_id: string; kind: string; data: string; created_at: string }
  >();
  for (const o of batch.outputs) {
    const row = {
      run_id: o.run_id,
      node_id: o.node_id,
      kind: o.kind,
      data: outputDataJson(o.data),
      created_at: createdAt,
    };
    outputs.set(JSON.stringify([o.run_id, o.node_id, o.kind]), row);
  }
  return {
    nodeRuns: [...latest.values()].map((nr) => ({ ...nr })),
    logs: batch.logs.map((l) => ({
      run_id: l.run_id,
      node_id: l.node_id,
      level: l.level,
      message: l.message,
      timestamp: l.timestamp,
    })),
    outputs: [...outputs.values()],
  };
}

/**
 * The updates applying `transitions`: those that go the same way (same target, same states from, same fields) are one
 * statement, each run's values picked by `case id when … then … end`. `ids`: the runs each one moves, if they are in
 * a state it moves from.
 */
export function transitionUpdates(
  knex: Knex,
  transitions: readonly RunTransition[],
): { update: Knex.QueryBuilder; ids: string[] }[] {
  const groups = new Map<string, RunTransition[]>();
  for (const t of transitions) {
    const key = JSON.stringify([t.to, [...t.from].sort(), Object.keys(t.fields).sort()]);
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  return [...groups.values()].map((group) => {
    const { to, from, fields } = group[0]!;
    const values: Record<string, unknown> = { status: to };
    for (const name of Object.keys(fields) as (keyof RunTransition["fields"])[]) {
      values[name] = knex.raw(
        `case id ${group.map(() => "when ? then ?").join(" ")} end`,
        group.flatMap((t) => [t.id, t.fields[name] ?? null]),
      );
    }
    const ids = group.map((t) => t.id);
    return {
      update: knex("runs")
        .whereIn("id", ids)
        .whereIn("status", [...from])
        .update(values),
      ids,
    };
  });
}
