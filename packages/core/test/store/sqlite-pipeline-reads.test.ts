import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import type { Pipeline } from "../../src/model/pipeline.js";
import { newId } from "../../src/ids.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";

const opened: { db: TestDatabase; store: KnexStore }[] = [];
afterAll(async () => {
  for (const { db, store } of opened) {
    await store.close();
    await db.drop();
  }
});

/*
 * SQLite stores a row's columns in order, and a pipeline's `updated_at` and a version's `created_at` come after its
 * body or snapshot: a read of them went through the row's overflow pages. The scheduler leader reads the change
 * marker every second, so an idle server holding 100 versions of a 9.5 MB pipeline was held for 0.3 s every second,
 * and listing the versions took as long (found by a helper's sweep). What those reads take must not grow with the size
 * of the pipelines.
 */
const VERSIONS = 20;

/** A store holding one pipeline saved VERSIONS times, its definition carrying `padding` characters. */
async function storeWithVersions(padding: number): Promise<{ store: KnexStore; id: string }> {
  const db = await createTestDatabase("sqlite");
  const store = await createKnexStore(db.url);
  opened.push({ db, store });
  const now = new Date().toISOString();
  const p: Pipeline = {
    id: newId(),
    name: "large",
    description: "",
    schedule: null,
    schedule_timezone: null,
    enabled: true,
    tags: [],
    params: {},
    nodes: [{ id: "code", type: "code", config: { source: `// ${"x".repeat(padding)}` } }],
    edges: [],
    hooks: [],
    depends_on: [],
    sla_deadline: null,
    sla_timezone: null,
    webhook_token: null,
    parallelism: null,
    created_at: now,
    updated_at: now,
  };
  const note = (message: string) => ({ version_id: newId(), message, created_at: new Date().toISOString() });
  await store.pipelines.insert(p, note("created"));
  for (let v = 1; v < VERSIONS; v++)
    await store.pipelines.update({ ...p, updated_at: new Date().toISOString() }, note(`save ${v}`));
  return { store, id: p.id };
}

/** The least time `read` took of 5 calls. */
async function fastest(read: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    await read();
    best = Math.min(best, performance.now() - began);
  }
  return best;
}

describe("SQLite reads of pipelines' small columns", () => {
  it("the change marker and the versions listing take about as long for 2 MB pipelines as for small ones", async () => {
    const small = await storeWithVersions(10);
    const large = await storeWithVersions(2_000_000);
    expect(await large.store.pipelines.listVersions(large.id)).toHaveLength(VERSIONS);
    expect(await fastest(() => large.store.pipelines.changeMarker())).toBeLessThan(
      10 * (await fastest(() => small.store.pipelines.changeMarker())) + 1,
    );
    expect(await fastest(() => large.store.pipelines.listVersions(large.id))).toBeLessThan(
      10 * (await fastest(() => small.store.pipelines.listVersions(small.id))) + 1,
    );
  });
});
