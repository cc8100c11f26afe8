import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { CLAIM } from "../../src/store/knex/sqlite-hot-path.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";

let db: TestDatabase | undefined;
let store: KnexStore | undefined;
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

/*
 * A claim runs on the server's thread at every free slot. With thousands of runs waiting (backfills queue up to 366 at
 * once, all with one created_at), a claim that visits every pending run, or sorts them, holds the thread for
 * milliseconds each time: 6 ms at 10,000 waiting, measured. The plan says what a claim visits.
 */
describe("the SQLite claim", () => {
  it("finds the oldest pending runs in the claim-order index and moves them by id, without a sort", async () => {
    db = await createTestDatabase("sqlite");
    store = await createKnexStore(db.url);
    const rows = (await store.knex.raw(`explain query plan ${CLAIM}`, ["owner", "t", "t", 8])) as {
      detail: string;
    }[];
    const plan = rows.map((r) => r.detail);
    expect(plan).toContain("SEARCH runs USING INDEX sqlite_autoindex_runs_1 (id=?)");
    expect(plan).toContainEqual(
      expect.stringMatching(/^SEARCH runs USING (COVERING )?INDEX runs_status_created_id_idx \(status=\?\)$/),
    );
    expect(plan.join("\n")).not.toMatch(/TEMP B-TREE|SCAN runs/);
  });
});
