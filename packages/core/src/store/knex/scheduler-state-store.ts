import type { Knex } from "knex";
import { nowIso, systemClock } from "../../clock.js";
import type { SchedulerState, SchedulerStateStore } from "../ports.js";
import { toNullableStr } from "./rows.js";
import { runToRow } from "./run-state-rows.js";

export function createSchedulerStateStore(knex: Knex): SchedulerStateStore {
  async function upsert(pipelineId: string, fields: Partial<Omit<SchedulerState, "pipeline_id">>): Promise<void> {
    const now = nowIso(systemClock);
    await knex("scheduler_state")
      .insert({ pipeline_id: pipelineId, last_slot_at: null, last_sla_date: null, ...fields, updated_at: now })
      .onConflict("pipeline_id")
      .merge({ ...fields, updated_at: now });
  }
  /** The pipeline's row, so that claims can update it. */
  async function ensureRow(pipelineId: string): Promise<void> {
    await knex("scheduler_state")
      .insert({ pipeline_id: pipelineId, last_slot_at: null, last_sla_date: null, updated_at: nowIso(systemClock) })
      .onConflict("pipeline_id")
      .ignore();
  }
  return {
    async get(pipelineId) {
      const row = (await knex("scheduler_state").where({ pipeline_id: pipelineId }).first()) as
        Record<string, unknown> | undefined;
      if (!row) return null;
      return {
        pipeline_id: pipelineId,
        last_slot_at: toNullableStr(row.last_slot_at),
        last_sla_date: toNullableStr(row.last_sla_date),
      };
    },
    async claimSlot(pipelineId, slotIso, runs = []) {
      await ensureRow(pipelineId);
      // the conditional UPDATE comes first: it takes the row's write lock at once (no shared lock to upgrade)
      return knex.transaction(async (trx) => {
        const changed = await trx("scheduler_state")
          .where({ pipeline_id: pipelineId })
          .andWhere((q) => q.whereNull("last_slot_at").orWhere("last_slot_at", "<", slotIso))
          .update({ last_slot_at: slotIso, updated_at: new Date().toISOString() });
        if (changed === 0) return false;
        if (runs.length > 0) await trx("runs").insert(runs.map((r) => ({ ...runToRow(r), schedule_slot: slotIso })));
        return true;
      });
    },
    async claimSlaDate(pipelineId, date) {
      await upsert(pipelineId, {});
      const changed = await knex("scheduler_state")
        .where({ pipeline_id: pipelineId })
        .andWhere((q) => q.whereNull("last_sla_date").orWhere("last_sla_date", "<", date))
        .update({ last_sla_date: date, updated_at: new Date().toISOString() });
      return changed > 0;
    },
  };
}
