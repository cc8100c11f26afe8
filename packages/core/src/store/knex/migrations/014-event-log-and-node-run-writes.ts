import type { Knex } from "knex";

/**
 * Less written per event and per node run:
 * - the event log's index on `created_at` goes: it served only the retention (every minute, events older than an
 *   hour), which now finds where the old events end along the primary key (`seq`, nearly the order of time) instead;
 * - PostgreSQL keeps half of each new page of `node_runs` free (fill factor 50; pages written before keep their
 *   fill): a node run is inserted `pending` when its run starts and written again as the node starts and ends, and
 *   with room on its page most of those writes are heap-only updates, which write neither of the table's indexes.
 */
export async function up(knex: Knex): Promise<void> {
  // first: this waits behind a VACUUM of node_runs, and must not do so holding the event log's exclusive lock below,
  // which would stop every instance's writes meanwhile
  if (knex.client.config.client === "pg") await knex.raw("alter table node_runs set (fillfactor = 50)");
  await knex.schema.alterTable("run_events", (t) => {
    t.dropIndex(["created_at"], "run_events_created_idx");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
