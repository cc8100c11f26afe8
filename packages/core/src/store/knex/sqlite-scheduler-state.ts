import type { SchedulerStateStore } from "../ports.js";
import { insertRuns } from "./sqlite-hot-path.js";
import type { SqliteStatements } from "./sqlite-statements.js";

const ENSURE_ROW =
  "insert into scheduler_state (pipeline_id, last_slot_at, last_sla_date, updated_at) values (?, null, null, ?) " +
  "on conflict (pipeline_id) do nothing";
const CLAIM_SLOT =
  "update scheduler_state set last_slot_at = ?, updated_at = ? " +
  "where pipeline_id = ? and (last_slot_at is null or last_slot_at < ?)";

/**
 * The SQLite scheduler state: a slot's claim and its run in one synchronous transaction on the store's connection,
 * so no other statement of this process waits on a transaction held open across an `await`.
 */
export function sqliteSchedulerStateStore(base: SchedulerStateStore, sqlite: SqliteStatements): SchedulerStateStore {
  return {
    ...base,
    claimSlot: (pipelineId, slotIso, runs = []) =>
      sqlite.transaction((prepare) => {
        const now = new Date().toISOString();
        prepare(ENSURE_ROW).run(pipelineId, now);
        if (prepare(CLAIM_SLOT).run(slotIso, now, pipelineId, slotIso).changes === 0) return false;
        insertRuns(prepare, runs, slotIso);
        return true;
      }),
  };
}
