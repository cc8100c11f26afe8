import type { Knex } from "knex";

/**
 * The event log shared by every instance on one database (docs/events.md), and the claim epoch of a run (every claim
 * increments it; the owner's writes are accepted only while owner and epoch still match, docs/deploying.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("run_events", (t) => {
    /** The `seq` clients see: one sequence for all instances. */
    t.bigIncrements("seq").primary();
    t.string("run_id", 36).notNullable();
    /** The executor (owner id) that wrote it: an instance skips its own when reading the others'. */
    t.string("origin", 64).notNullable();
    /** The event without `seq`, as JSON. */
    t.text("body", "longtext").notNullable();
    t.string("created_at", 32).notNullable();
    t.index(["run_id", "seq"], "run_events_run_seq_idx");
    t.index(["created_at"], "run_events_created_idx");
  });
  await knex.schema.alterTable("runs", (t) => {
    t.integer("epoch").notNullable().defaultTo(0);
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
