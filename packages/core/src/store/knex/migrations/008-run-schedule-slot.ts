import type { Knex } from "knex";

/**
 * The schedule slot a `schedule` or `catchup` run was queued for (null for every other trigger). It is written in the
 * transaction that records the slot as fired, and unique per pipeline: whatever retries, crashes or leader changes
 * happen, one slot has at most one run (docs/scheduling.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("runs", (t) => {
    t.string("schedule_slot", 32).nullable();
    t.unique(["pipeline_id", "schedule_slot"], { indexName: "runs_pipeline_schedule_slot_unique" });
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
