import type { Knex } from "knex";

/**
 * Less written per event and per node run:
 * - the event log's index on `created_at` goes: it served only the hourly retention, which now finds the first event
 *   to keep along the primary key (`seq`, in the order events are appended) instead;
 * - PostgreSQL keeps room on each page of `node_runs` (fill factor 50): a node run is inserted `pending` when its run
 *   starts and written again when the node ends, and with room on its page that second write is a heap-only update,
 *   which writes neither of the table's indexes again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("run_events", (t) => {
    t.dropIndex(["created_at"], "run_events_created_idx");
  });
  if (knex.client.config.client === "pg") await knex.raw("alter table node_runs set (fillfactor = 50)");
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
