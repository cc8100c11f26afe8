import type { Knex } from "knex";
import { dependsOnOfBody } from "../pipeline-store.js";

/** Pipelines filled per statement while the columns are added. */
const FILL_BATCH = 200;

/**
 * `pipelines.depends_on`: a copy of the definition's `depends_on` (as JSON), beside the other copies the listing and
 * the scheduler read (`schedule`, `enabled`, …), so that what needs every pipeline's dependencies does not read every
 * pipeline's definition: the scheduler leader's reload after any change, the dependency checks of every save, and
 * `GET /pipelines/{id}/deps`. With 1,000 pipelines of 19 KB each, the reload held a SQLite server for 0.1–0.35 s and
 * each save took 0.16 s (found by a helper's sweep). `depends_on_at` is the `updated_at` the copy was made for: a row
 * written since by a Sluice without these columns (an older instance still running beside a newer one) has another,
 * and its definition is read instead (`PipelineStore.listDependencyRefs`). Existing rows are filled here.
 *
 * On SQLite, whose rows keep their columns in order (these come after the body), an index holds every column the
 * schedules and dependency checks read, so that they read no row at all.
 */
export async function up(knex: Knex): Promise<void> {
  // MySQL commits each DDL statement: a start that died while filling finds the columns there already
  const missing = async (column: string) => !(await knex.schema.hasColumn("pipelines", column));
  const addDependsOn = await missing("depends_on");
  const addAt = await missing("depends_on_at");
  if (addDependsOn || addAt)
    await knex.schema.alterTable("pipelines", (t) => {
      if (addDependsOn) t.text("depends_on", "longtext").nullable();
      if (addAt) t.string("depends_on_at", 32).nullable();
    });
  await fillDependsOn(knex);
  if (knex.client.config.client === "better-sqlite3")
    await knex.schema.alterTable("pipelines", (t) => {
      t.index(
        [
          "created_at",
          "id",
          "name",
          "schedule",
          "schedule_timezone",
          "enabled",
          "updated_at",
          "depends_on_at",
          "depends_on",
        ],
        "pipelines_refs_idx",
      );
    });
}

/** Fills `depends_on` of the rows that have none from their definitions. */
export async function fillDependsOn(knex: Knex): Promise<void> {
  for (;;) {
    const rows = (await knex("pipelines")
      .select("id", "body", "updated_at")
      .whereNull("depends_on")
      .limit(FILL_BATCH)) as { id: string; body: unknown; updated_at: string }[];
    for (const row of rows)
      await knex("pipelines")
        .where({ id: row.id })
        .update({ depends_on: JSON.stringify(dependsOnOfBody(row.body)), depends_on_at: row.updated_at });
    if (rows.length < FILL_BATCH) return;
  }
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
