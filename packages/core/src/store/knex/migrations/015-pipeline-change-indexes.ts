import type { Knex } from "knex";

/**
 * Indexes that spare SQLite reading pipeline bodies and version snapshots where only small columns are wanted. SQLite
 * stores a row's columns in order, and `updated_at` and `created_at` come after the body or snapshot: with no index
 * holding them, every read of them went through the row's overflow pages, megabytes for a large pipeline.
 *
 * - `updated_at` and `created_at`: the change marker the scheduler leader reads every second
 *   (`PipelineStore.changeMarker`, a count and the latest of each) scans these indexes alone. With 100 versions of a
 *   9.5 MB pipeline, an idle server was held for 0.3 s every second (found by a helper's sweep).
 * - The versions listing (`GET /pipelines/{id}/versions`): every column it returns, so its rows are not read.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("pipelines", (t) => {
    t.index(["updated_at"], "pipelines_updated_at_idx");
  });
  await knex.schema.alterTable("pipeline_versions", (t) => {
    t.index(["created_at"], "pipeline_versions_created_at_idx");
    t.index(["pipeline_id", "version", "id", "message", "created_at"], "pipeline_versions_listing_idx");
  });
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
