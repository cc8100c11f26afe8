import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import type { Pipeline } from "../../src/model/pipeline.js";
import { newId } from "../../src/ids.js";
import { contentDigest, digestOf } from "../../src/content-digest.js";
import { planOf } from "../../src/engine/pipeline-plan.js";
import { NODE_TYPE_REGISTRY } from "../../src/engine/nodes/index.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

/*
 * PostgreSQL instances and a SQLite store keep pipelines in memory (the read every trigger made) and drop them when
 * the database announces a write of the row (SQLite: when the count of writes its triggers keep has moved). What
 * must hold: no instance ever runs a definition older than the last write it could have seen — its own writes at
 * once, another instance's or a hand-made UPDATE once notified, and changes made while its notification connection
 * was down once it is back.
 */
const postgres = (await testDialects()).includes("postgres");

const pipeline = (name: string): Pipeline => {
  const now = new Date().toISOString();
  return {
    id: newId(),
    name,
    description: "",
    schedule: null,
    schedule_timezone: null,
    enabled: true,
    tags: [],
    params: {},
    nodes: [{ id: "n", type: "source_file", config: { rows: [] } }],
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
};
const note = (message: string) => ({ version_id: newId(), message, created_at: new Date().toISOString() });

/** Reads the pipeline through `store` until `ok` holds or `withinMs` have passed; returns the last read. */
async function readUntil(
  store: KnexStore,
  id: string,
  ok: (p: Pipeline | null) => boolean,
  withinMs: number,
): Promise<Pipeline | null> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const p = await store.pipelines.get(id);
    if (ok(p) || Date.now() > deadline) return p;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.runIf(postgres)("pipelines kept in memory on PostgreSQL", () => {
  let db: TestDatabase;
  let a: KnexStore;
  let b: KnexStore;
  let admin: pg.Client;
  /** Statements instance b sends that read the pipelines table. */
  let bReads = 0;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    a = await createKnexStore(db.url);
    b = await createKnexStore(db.url);
    b.knex.on("query", (q: { sql: string }) => {
      if (/from "pipelines"/.test(q.sql)) bReads++;
    });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  /** A notification takes a moment to arrive. */
  const eventually = (id: string, ok: (p: Pipeline | null) => boolean) => readUntil(b, id, ok, 10_000);

  it("a second read is served from memory; the instance's own write is seen at once", async () => {
    const p = pipeline("v1");
    await b.pipelines.insert(p, note("created"));
    // the database's announcement of this very insert may still be on its way, and a read overlapping it keeps
    // nothing: within a few reads the pipeline is served from memory
    let fromMemory = false;
    for (let i = 0; i < 100 && !fromMemory; i++) {
      const reads = bReads;
      expect((await b.pipelines.get(p.id))?.name).toBe("v1");
      fromMemory = bReads === reads;
      if (!fromMemory) await new Promise((r) => setTimeout(r, 50));
    }
    expect(fromMemory).toBe(true);
    const again = await b.pipelines.get(p.id);
    // what a caller does to the object it got does not change what the next caller gets
    again!.name = "scribbled";
    expect((await b.pipelines.get(p.id))?.name).toBe("v1");
    expect(await b.pipelines.update({ ...p, name: "v2" }, note("renamed"))).toBe(true);
    expect((await b.pipelines.get(p.id))?.name).toBe("v2");
    expect(await b.pipelines.delete(p.id)).toBe(true);
    expect(await b.pipelines.get(p.id)).toBeNull();
  });

  it("another instance's write and a hand-made UPDATE reach it through the database", async () => {
    const p = pipeline("v1");
    await a.pipelines.insert(p, note("created"));
    expect((await b.pipelines.get(p.id))?.name).toBe("v1");
    await a.pipelines.update({ ...p, name: "v2" }, note("renamed on a"));
    expect((await eventually(p.id, (x) => x?.name === "v2"))?.name).toBe("v2");
    // by hand, as an operator might (the definition is the `body` column; `updated_at` is read as is)
    await admin.query("update pipelines set updated_at = 'by hand' where id = $1", [p.id]);
    expect((await eventually(p.id, (x) => x?.updated_at === "by hand"))?.updated_at).toBe("by hand");
    await a.pipelines.delete(p.id);
    expect(await eventually(p.id, (x) => x === null)).toBeNull();
  });

  it("a change made while its notification connection was down is seen once it is back", async () => {
    const p = pipeline("v1");
    await a.pipelines.insert(p, note("created"));
    expect((await b.pipelines.get(p.id))?.name).toBe("v1");
    const listeners = async () =>
      (
        await admin.query<{ pid: number }>(
          "select pid from pg_stat_activity where datname = current_database() and application_name = 'sluice listen sluice_pipelines'",
        )
      ).rows.map((r) => r.pid);
    const before = await listeners();
    expect(before).toHaveLength(2); // a's and b's
    await admin.query("select pg_terminate_backend(pid) from unnest($1::int[]) as pid", [before]);
    // written while nobody listens: no notification will ever tell of it
    await admin.query("update pipelines set updated_at = 'while away' where id = $1", [p.id]);
    // both reconnect by themselves (after a second)
    const deadline = Date.now() + 10_000;
    while ((await listeners()).filter((pid) => !before.includes(pid)).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect((await b.pipelines.get(p.id))?.updated_at).toBe("while away");
  });
});

describe("pipelines kept in memory on SQLite", () => {
  let db: TestDatabase;
  let mine: KnexStore;
  let other: KnexStore;
  let shell: Database.Database;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    mine = await createKnexStore(db.url);
    // another process on the same file, and an operator's sqlite3 shell
    other = await createKnexStore(db.url);
    shell = new Database(mine.filePath as string);
  });
  afterAll(async () => {
    shell?.close();
    await mine?.close();
    await other?.close();
    await db?.drop();
  });

  /** Within 4 s: sooner than an entry's 5 s age limit would drop it anyway, later than the feed's 1 s look. */
  const eventually = (id: string, ok: (p: Pipeline | null) => boolean) => readUntil(mine, id, ok, 4_000);

  it("its own writes are seen at once, and what a caller does to a pipeline it got stays with it", async () => {
    const p = pipeline("v1");
    await mine.pipelines.insert(p, note("created"));
    expect((await mine.pipelines.get(p.id))?.name).toBe("v1");
    const got = await mine.pipelines.get(p.id);
    // it comes with its content's digest (what a trigger's validation and plan are remembered by), computed once per
    // entry
    expect(digestOf(got!)).toBe(contentDigest(got));
    got!.name = "scribbled";
    got!.nodes.length = 0;
    const again = await mine.pipelines.get(p.id);
    expect(again?.name).toBe("v1");
    expect(again?.nodes).toHaveLength(1);
    expect(digestOf(again!)).toBe(contentDigest(again));
    for (let i = 2; i <= 5; i++) {
      expect(await mine.pipelines.update({ ...p, name: `v${i}` }, note("renamed"))).toBe(true);
      const renamed = await mine.pipelines.get(p.id);
      expect([renamed?.name, digestOf(renamed!)]).toEqual([`v${i}`, contentDigest(renamed)]);
    }
    expect(await mine.pipelines.delete(p.id)).toBe(true);
    expect(await mine.pipelines.get(p.id)).toBeNull();
  });

  it("a copy its caller changed is planned as it is now, not as it was stored", async () => {
    const p = pipeline("plan");
    await mine.pipelines.insert(p, note("created"));
    expect(planOf((await mine.pipelines.get(p.id))!, NODE_TYPE_REGISTRY).nodes.size).toBe(1);
    const changed = (await mine.pipelines.get(p.id))!;
    changed.nodes.push({ id: "m", type: "no_such_type", config: {} });
    const plan = planOf(changed, NODE_TYPE_REGISTRY);
    expect([...plan.nodes.keys()]).toEqual(["n", "m"]);
    expect(plan.planned.get("m")).toEqual({ ok: false, error: "unknown node type 'no_such_type'" });
  });

  it("another connection's write to the file is seen within the feed's second", async () => {
    const p = pipeline("v1");
    await mine.pipelines.insert(p, note("created"));
    expect((await mine.pipelines.get(p.id))?.name).toBe("v1");
    await other.pipelines.update({ ...p, name: "v2" }, note("renamed elsewhere"));
    expect((await eventually(p.id, (x) => x?.name === "v2"))?.name).toBe("v2");
    shell.prepare("update pipelines set updated_at = 'by hand' where id = ?").run(p.id);
    expect((await eventually(p.id, (x) => x?.updated_at === "by hand"))?.updated_at).toBe("by hand");
    shell.prepare("delete from pipelines where id = ?").run(p.id);
    expect(await eventually(p.id, (x) => x === null)).toBeNull();
  });

  it("a write through the store's own connection that bypasses it is seen within the second too", async () => {
    const p = pipeline("v1");
    await mine.pipelines.insert(p, note("created"));
    expect((await mine.pipelines.get(p.id))?.name).toBe("v1");
    await mine.knex("pipelines").where({ id: p.id }).update({ updated_at: "behind its back" });
    expect((await eventually(p.id, (x) => x?.updated_at === "behind its back"))?.updated_at).toBe("behind its back");
    await mine.knex("pipelines").where({ id: p.id }).delete();
    expect(await eventually(p.id, (x) => x === null)).toBeNull();
  });
});
