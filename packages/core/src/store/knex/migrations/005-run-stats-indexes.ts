import type { Knex } from "knex";

/** Covering indexes for the dashboard and summary aggregations (per-pipeline counts by status, daily trends). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("runs", (t) => {
    t.index(["pipeline_id", "status"], "runs_pipeline_status_idx");
    t.index(["created_at", "status"], "runs_created_status_idx");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
