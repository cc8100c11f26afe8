import type { Knex } from "knex";
import { parseJson } from "../rows.js";

/** Pipelines filled per statement while the column is added. */
const FILL_BATCH = 200;

/**
 * `pipelines.depends_on`: a copy of the definition's `depends_on` (as JSON), beside the other copies the listing and
 * the scheduler read (`schedule`, `enabled`, …), so that what needs every pipeline's dependencies does not read every
 * pipeline's definition: the scheduler leader's reload after any change, the dependency checks of every save, and
 * `GET /pipelines/{id}/deps`. With 1,000 pipelines of 19 KB each, the reload held the server for 0.1–0.35 s (found by a
 * helper's sweep). Existing rows are filled here from their definitions.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("pipelines", (t) => {
    t.text("depends_on", "longtext").nullable();
  });
  await fillDependsOn(knex);
}

/** Fills `depends_on` of the rows that have none from their definitions. */
export async function fillDependsOn(knex: Knex): Promise<void> {
  for (;;) {
    const rows = (await knex("pipelines").select("id", "body").whereNull("depends_on").limit(FILL_BATCH)) as {
      id: string;
      body: unknown;
    }[];
    for (const row of rows)
      await knex("pipelines")
        .where({ id: row.id })
        .update({ depends_on: JSON.stringify(parseJson<{ depends_on?: string[] }>(row.body, {}).depends_on ?? []) });
    if (rows.length < FILL_BATCH) return;
  }
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
