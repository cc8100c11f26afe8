import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore } from "../../src/store/knex/create-knex-store.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

const fileSize = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

/*
 * The server's SQLite connection never checkpoints its write-ahead log itself (a commit that does stalls the event
 * loop); a worker thread does. Without it, what is written would stay in the -wal file until the store closes.
 */
describe("the SQLite store's write-ahead log", () => {
  it("is copied into the database file while the store is open, and everything is there after reopening", async () => {
    const db = await createTestDatabase("sqlite");
    dbs.push(db);
    const file = db.url.replace(/^sqlite:/, "");
    const store = await createKnexStore(db.url);
    const before = fileSize(file);
    const line = "x".repeat(2000);
    for (let batch = 0; batch < 30; batch++) {
      await store.runs.writeBatch({
        nodeRuns: [],
        outputs: [],
        logs: Array.from({ length: 100 }, (_, i) => ({
          run_id: "ckpt",
          node_id: null,
          level: "info" as const,
          message: `${batch}-${i} ${line}`,
          timestamp: "2026-01-01T00:00:00.000Z",
        })),
      });
    }
    const deadline = Date.now() + 10_000;
    while (fileSize(file) < before + 5_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(fileSize(file)).toBeGreaterThan(before + 5_000_000);
    await store.close();

    const reopened = await createKnexStore(db.url);
    try {
      expect(await reopened.runs.logs("ckpt")).toHaveLength(3000);
    } finally {
      await reopened.close();
    }
  }, 30_000);
});
