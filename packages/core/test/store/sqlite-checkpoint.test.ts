import fs from "node:fs";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createKnexStore } from "../../src/store/knex/create-knex-store.js";
import { SqliteCheckpointer } from "../../src/store/knex/sqlite-checkpointer.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { pollUntil } from "../../../../test-support/poll.js";

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

const fileSize = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

/**
 * A new database's file and a connection to it as the store opens the server's (`busyTimeoutMs`: how long its writes
 * wait for the database), its log checkpointed by the thread alone, holding a table `t (x blob)`.
 */
async function walWriter(busyTimeoutMs: number) {
  const db = await createTestDatabase("sqlite");
  dbs.push(db);
  const file = db.url.replace(/^sqlite:/, "");
  const writer = new Database(file);
  writer.pragma("journal_mode = WAL");
  writer.pragma("wal_autocheckpoint = 0");
  writer.pragma("synchronous = NORMAL");
  writer.pragma(`busy_timeout = ${busyTimeoutMs}`);
  writer.exec("create table t (x blob)");
  return { file, writer };
}

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

  it("under writes that never stop, starts again from its beginning instead of growing with them", async () => {
    const { file, writer } = await walWriter(5000);
    const failures: string[] = [];
    // small settings, so that a test writes what a server under load writes in minutes: the log is started again
    // once it holds 256 frames (1 MiB), and its file never emptied (TRUNCATE, the other way to keep it small)
    const checkpointer = new SqliteCheckpointer(file, (reason) => failures.push(reason), {
      intervalMs: 20,
      restartFrames: 256,
      truncateBytes: Number.MAX_SAFE_INTEGER,
    });
    const insert = writer.prepare("insert into t values (?)");
    const blob = Buffer.alloc(64 * 1024, 7);
    let largest = 0;
    try {
      // the thread at work: a first row copied into the database file
      const empty = fileSize(file);
      insert.run(blob);
      await pollUntil(() => (fileSize(file) >= empty + blob.length ? true : undefined), { timeoutMs: 20_000 });
      // 96 MiB more, one transaction after another, a millisecond between them as a server at full load leaves
      for (let i = 0; i < 1536; i++) {
        insert.run(blob);
        if (i % 8 === 0) largest = Math.max(largest, fileSize(`${file}-wal`));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } finally {
      await checkpointer.close();
    }
    expect(failures).toEqual([]);
    // a log never started again holds nearly all of the 96 MiB written
    expect(largest).toBeLessThan(40 * 1024 * 1024);
    expect((writer.prepare("select count(*) as n from t").get() as { n: number }).n).toBe(1537);
    writer.close();
  }, 60_000);

  it("never makes the server's writes wait for a reader that holds the log", async () => {
    // a write that waits a second for the database fails: what a checkpoint holding it for a reader would do
    const { file, writer } = await walWriter(1000);
    const insert = writer.prepare("insert into t values (?)");
    const blob = Buffer.alloc(64 * 1024, 7);
    insert.run(blob);
    const failures: string[] = [];
    // the log started again, and its file emptied, after every write: both are tried on every round
    const checkpointer = new SqliteCheckpointer(file, (reason) => failures.push(reason), {
      intervalMs: 20,
      restartFrames: 1,
      truncateBytes: 1,
    });
    // an operator's shell in the middle of a read, or a backup: a transaction on the log as it is now
    const reader = new Database(file, { readonly: true });
    reader.exec("begin");
    reader.prepare("select count(*) from t").get();
    try {
      // writes for a second and more while the reader holds the log: none may wait for it
      for (let i = 0; i < 200; i++) {
        insert.run(blob);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      reader.exec("commit");
      reader.close();
      await checkpointer.close();
    }
    expect(failures).toEqual([]);
    expect((writer.prepare("select count(*) as n from t").get() as { n: number }).n).toBe(201);
    writer.close();
  }, 60_000);
});
