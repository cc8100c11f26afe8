import type { Knex } from "knex";

/**
 * The index on (`created_at`) alone: 005's index on (`created_at`, `status`) has it as its first column, so it serves
 * every query the other served (the run lists, purges and dashboards by `created_at`), and each run written kept one
 * more index up to date for nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("runs", (t) => {
    t.dropIndex(["created_at"], "runs_created_idx");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
