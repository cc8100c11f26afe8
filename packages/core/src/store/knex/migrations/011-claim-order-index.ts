import type { Knex } from "knex";

/**
 * The claim's order in one index: pending runs by `created_at`, then `id` (store/knex/run-store.ts `claimPending`).
 * The index on (`status`, `created_at`) it replaces left the `id` part to a sort of every pending run sharing a
 * `created_at` — a backfill's runs all do — at every claim: with 10,000 runs waiting, each claim took 6 ms of the
 * server's thread on SQLite. This index keeps the old one's columns first, so what used the old one uses this one;
 * the old one goes in 012. Not in one migration: on PostgreSQL building this index holds a SHARE lock on `runs`, and
 * dropping the other in the same transaction would then wait for an ACCESS EXCLUSIVE one behind the row locks of
 * instances still writing runs, a deadlock.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("runs", (t) => {
    t.index(["status", "created_at", "id"], "runs_status_created_id_idx");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
