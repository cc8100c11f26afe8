import type { Knex } from "knex";

/** The index on (`status`, `created_at`): the first columns of 011's, which serves what it served. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("runs", (t) => {
    t.dropIndex(["status", "created_at"], "runs_status_created_idx");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
