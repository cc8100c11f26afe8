import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import { JsonText } from "../../src/store/output-data.js";
import type { Run } from "../../src/model/run.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";
import { nodeRunRow, pendingRun, T0 } from "../../../../test-support/run-fixtures.js";

const dialects = await testDialects();

const t0 = T0;
const run = (id: string, over: Partial<Run> = {}): Run => pendingRun(id, { params: { a: "1" }, ...over });

describe.each(dialects)("%s run store contract", (dialect) => {
  let db: TestDatabase;
  let a: KnexStore;
  let b: KnexStore;
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    a = await createKnexStore(db.url);
    b = await createKnexStore(db.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it(`${dialect}: concurrent claims never hand one pending run to two owners`, async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `claim-${String(i).padStart(2, "0")}`);
    await a.runs.insert(
      ids.map((id, i) => run(id, { created_at: `2026-01-01T00:00:${String(i).padStart(2, "0")}.000Z` })),
    );
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? a : b).runs.claimPending(`owner-${i}`, 7, "2026-01-02T00:00:00.000Z"),
      ),
    );
    const claimed = claims.flat().map((r) => r.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual(ids);
    const one = await a.runs.get("claim-00");
    expect(one?.status).toBe("running");
    expect(one?.started_at).toBe("2026-01-02T00:00:00.000Z");
    expect(one?.params).toEqual({ a: "1" });
    expect(await a.runs.claimPending("late", 5, t0)).toEqual([]);
  });

  it(`${dialect}: claims take the oldest pending runs first, and runs queued in the same millisecond by id`, async () => {
    // a backfill's runs share their created_at: the claim order among them is their id order
    const sameMs = "2000-01-01T00:00:00.001Z";
    const ids = ["tie-c", "tie-a", "tie-e", "tie-b", "tie-d"];
    await a.runs.insert([
      ...ids.map((id) => run(id, { created_at: sameMs })),
      run("tie-first", { created_at: "2000-01-01T00:00:00.000Z" }),
    ]);
    const first = await a.runs.claimPending("order-1", 3, t0);
    const second = await b.runs.claimPending("order-2", 3, t0);
    expect(first.map((r) => r.id)).toEqual(["tie-first", "tie-a", "tie-b"]);
    expect(second.map((r) => r.id)).toEqual(["tie-c", "tie-d", "tie-e"]);
    expect(second.every((r) => r.owner === "order-2" && r.status === "running")).toBe(true);
  });

  it(`${dialect}: runs of dead owners are failed with the given error, others untouched`, async () => {
    await a.runs.insert([run("dead-1", { pipeline_id: "p-dead" }), run("alive-1", { pipeline_id: "p-dead" })]);
    await a.knex("runs").where({ id: "dead-1" }).update({ status: "running", owner: "ghost" });
    await a.knex("runs").where({ id: "alive-1" }).update({ status: "running", owner: "me" });
    const owners = await a.runs.runningOwners();
    expect(owners.map((o) => o.owner)).toEqual(expect.arrayContaining(["ghost", "me"]));
    const failed = await a.runs.failRunsOfOwners(["ghost"], "interrupted", "2026-01-03T00:00:00.000Z");
    expect(failed.map((r) => r.id)).toEqual(["dead-1"]);
    expect(await a.runs.get("dead-1")).toMatchObject({
      status: "failed",
      error: "interrupted",
      finished_at: "2026-01-03T00:00:00.000Z",
    });
    expect((await a.runs.get("alive-1"))?.status).toBe("running");
  });

  it(`${dialect}: a claimed run says whether it has node runs of an earlier attempt (a resume)`, async () => {
    // other tests' runs may be pending too: claim everything and look at these two
    await a.runs.insert([run("att-new", { pipeline_id: "p-att" }), run("att-resumed", { pipeline_id: "p-att" })]);
    await a.runs.writeBatch({
      nodeRuns: [
        {
          id: "att-nr",
          run_id: "att-resumed",
          node_id: "n",
          status: "success",
          attempt: 1,
          row_count: 1,
          duration_ms: 1,
          started_at: t0,
          finished_at: t0,
          error: null,
        },
      ],
      logs: [],
      outputs: [],
    });
    const claimed = await b.runs.claimPending("att-owner", 1000, t0);
    const byId = new Map(claimed.map((r) => [r.id, r.attempted]));
    expect([byId.get("att-new"), byId.get("att-resumed")]).toEqual([false, true]);
  });

  it(`${dialect}: a batch's text comes back exactly as written, whatever its characters`, async () => {
    // PostgreSQL sends a batch's rows as one JSON parameter (array-rows.ts): quotes, backslashes, braces, the word
    // NULL, empty strings and nulls must each survive it
    const texts = ['say "hi"', 'back\\slash \\"', "{a,b}", "NULL", "", "null", "tab\tnew\nline", "ünï 🚀", "a,b;c'd"];
    await a.runs.insert([run("tx-1", { pipeline_id: "p-tx" })]);
    await a.runs.writeBatch({
      nodeRuns: texts.map((text, i) => ({
        ...nodeRunRow(`tx-nr-${i}`, "tx-1", { status: "failed" }),
        node_id: `n${i}`,
        error: text,
        started_at: i % 2 ? null : t0,
      })),
      logs: texts.map((message, i) => ({
        run_id: "tx-1",
        node_id: i % 2 ? null : `n${i}`,
        level: "info" as const,
        message,
        timestamp: t0,
      })),
      outputs: texts.map((text, i) => ({ run_id: "tx-1", node_id: `n${i}`, kind: "preview", data: { text } })),
    });
    const nodeRuns = await b.runs.nodeRuns("tx-1");
    expect(nodeRuns.map((nr) => nr.error)).toEqual(texts);
    expect(nodeRuns.map((nr) => nr.started_at)).toEqual(texts.map((_, i) => (i % 2 ? null : t0)));
    const logs = await b.runs.logs("tx-1");
    expect(logs.map((l) => [l.node_id, l.message])).toEqual(texts.map((text, i) => [i % 2 ? null : `n${i}`, text]));
    for (const [i, text] of texts.entries()) expect(await b.runs.output("tx-1", `n${i}`, "preview")).toEqual({ text });
  });

  it(`${dialect}: a lone surrogate (half an emoji cut off) does not cost a batch its writes`, async () => {
    await a.runs.insert([run("ls-1", { pipeline_id: "p-ls" })]);
    await a.runs.writeBatch({
      nodeRuns: [{ ...nodeRunRow("ls-nr", "ls-1"), error: "cut \ud83d" }],
      logs: [{ run_id: "ls-1", node_id: null, level: "info", message: "cut \ud83d", timestamp: t0 }],
      outputs: [{ run_id: "ls-1", node_id: "n1", kind: "preview", data: { text: "cut \ud83d" } }],
    });
    // stored with U+FFFD in its place (how many depends on the driver's UTF-8 encoding)
    expect((await b.runs.nodeRuns("ls-1"))[0]?.error).toMatch(/^cut \ufffd+$/);
    expect((await b.runs.logs("ls-1"))[0]?.message).toMatch(/^cut \ufffd+$/);
    expect(await b.runs.output("ls-1", "n1", "preview")).toEqual({ text: "cut \ud83d" });
  });

  it(`${dialect}: a NUL character does not cost a batch its writes`, async () => {
    // PostgreSQL text cannot hold NUL: it is stored as U+FFFD there, as it is (exactly) elsewhere
    await a.runs.insert([run("nul-1", { pipeline_id: "p-nul" })]);
    await a.runs.writeBatch({
      nodeRuns: [{ ...nodeRunRow("nul-nr", "nul-1"), error: "a\u0000b" }],
      logs: [{ run_id: "nul-1", node_id: null, level: "info", message: "a\u0000b", timestamp: t0 }],
      outputs: [{ run_id: "nul-1", node_id: "n1", kind: "preview", data: { text: "a\u0000b" } }],
    });
    const stored = ["a\u0000b", "a\ufffdb"];
    expect(stored).toContain((await b.runs.nodeRuns("nul-1"))[0]?.error);
    expect(stored).toContain((await b.runs.logs("nul-1"))[0]?.message);
    expect(await b.runs.output("nul-1", "n1", "preview")).toEqual({ text: "a\u0000b" });
  });

  /** A new run with a log line, a preview and a node run of `status` (null: refused, the column is NOT NULL). */
  const writeBatchOf = (runId: string, status: string | null) => ({
    runs: [run(runId, { pipeline_id: "p-atom" })],
    nodeRuns: [{ ...nodeRunRow(`${runId}-nr`, runId), status } as ReturnType<typeof nodeRunRow>],
    logs: [{ run_id: runId, node_id: null, level: "info" as const, message: "kept with its run", timestamp: t0 }],
    outputs: [{ run_id: runId, node_id: "n1", kind: "preview" as const, data: { rows: [] } }],
  });

  it(`${dialect}: a batch the database refuses part of writes nothing, and the next batch is written whole`, async () => {
    const refused = writeBatchOf("atom-1", null);
    await expect(a.runs.writeBatch(refused)).rejects.toThrow();
    expect(await b.runs.get("atom-1")).toBeNull();
    expect(await b.runs.logs("atom-1")).toEqual([]);
    expect(await b.runs.output("atom-1", "n1", "preview")).toBeNull();
    // the connection is left usable, outside any transaction: the same batch, corrected, is written whole
    await a.runs.writeBatch(writeBatchOf("atom-1", "success"));
    expect((await b.runs.get("atom-1"))?.status).toBe("pending");
    expect((await b.runs.nodeRuns("atom-1")).map((nr) => nr.status)).toEqual(["success"]);
    expect((await b.runs.logs("atom-1")).map((l) => l.message)).toEqual(["kept with its run"]);
    expect(await b.runs.output("atom-1", "n1", "preview")).toEqual({ rows: [] });
  });

  it(`${dialect}: the log lines of a batch larger than one statement keep their order`, async () => {
    await a.runs.insert([run("lo-1", { pipeline_id: "p-lo" })]);
    const messages = Array.from({ length: 10_001 }, (_, i) => `m${i}`);
    await a.runs.writeBatch({
      nodeRuns: [],
      logs: messages.map((message) => ({
        run_id: "lo-1",
        node_id: null,
        level: "info" as const,
        message,
        timestamp: t0,
      })),
      outputs: [],
    });
    expect((await b.runs.logs("lo-1")).map((l) => l.message)).toEqual(messages);
  });

  it(`${dialect}: transitions only from the expected states`, async () => {
    await a.runs.insert([run("tr-1", { pipeline_id: "p-tr" })]);
    expect(await a.runs.transition("tr-1", ["running"], "success")).toBe(false);
    expect(await a.runs.transition("tr-1", ["pending", "running"], "cancelled", { finished_at: t0 })).toBe(true);
    expect(await b.runs.transition("tr-1", ["pending", "running"], "cancelled")).toBe(false);
    expect((await b.runs.get("tr-1"))?.status).toBe("cancelled");
  });

  it(`${dialect}: a batch applies its transitions after its node runs and names the runs that moved`, async () => {
    await a.runs.insert([run("bt-1", { pipeline_id: "p-bt" }), run("bt-2", { pipeline_id: "p-bt" })]);
    await a.runs.transition("bt-1", ["pending"], "running", { started_at: t0 });
    const result = await a.runs.writeBatch({
      runs: [run("bt-new", { pipeline_id: "p-bt" })],
      nodeRuns: [],
      logs: [{ run_id: "bt-1", node_id: null, level: "info", message: "done", timestamp: t0 }],
      outputs: [],
      transitions: [
        { id: "bt-1", from: ["running"], to: "success", fields: { finished_at: t0, owner: null } },
        // bt-2 is still pending: a finish must not overwrite it
        { id: "bt-2", from: ["running"], to: "failed", fields: { error: "x", finished_at: t0 } },
      ],
    });
    expect(result.moved).toEqual(["bt-1"]);
    expect(await b.runs.get("bt-new")).toMatchObject({ status: "pending", pipeline_id: "p-bt" });
    expect(await b.runs.get("bt-1")).toMatchObject({ status: "success", finished_at: t0 });
    expect(await b.runs.get("bt-2")).toMatchObject({ status: "pending", error: null, finished_at: null });
    expect((await b.runs.logs("bt-1")).map((l) => l.message)).toEqual(["done"]);
  });

  it(`${dialect}: transitions of one batch going the same way each get their own values, and only the fields they name`, async () => {
    await a.runs.insert(["bg-1", "bg-2", "bg-3"].map((id) => run(id, { pipeline_id: "p-bg" })));
    for (const id of ["bg-1", "bg-2"])
      await a.runs.transition(id, ["pending"], "running", { started_at: t0, error: "stale" });
    const finish = (id: string, at: string, error: string | null) => ({
      id,
      from: ["running" as const],
      to: "failed" as const,
      fields: { error, finished_at: at, owner: null },
    });
    const { moved } = await a.runs.writeBatch({
      nodeRuns: [],
      logs: [],
      outputs: [],
      transitions: [
        finish("bg-1", "2026-01-01T00:00:01.000Z", "first's error"),
        finish("bg-2", "2026-01-01T00:00:02.000Z", null),
        finish("bg-3", "2026-01-01T00:00:03.000Z", "never running"),
      ],
    });
    expect([...moved].sort()).toEqual(["bg-1", "bg-2"]);
    expect(await b.runs.get("bg-1")).toMatchObject({
      status: "failed",
      error: "first's error",
      started_at: t0,
      finished_at: "2026-01-01T00:00:01.000Z",
    });
    // a field named null is cleared; one not named (started_at) is kept
    expect(await b.runs.get("bg-2")).toMatchObject({
      status: "failed",
      error: null,
      started_at: t0,
      finished_at: "2026-01-01T00:00:02.000Z",
    });
    expect(await b.runs.get("bg-3")).toMatchObject({ status: "pending", error: null, finished_at: null });
  });

  it(`${dialect}: batched node runs upsert (last state wins), logs keep order and filter, outputs round-trip`, async () => {
    const nr = nodeRunRow("nr-1", "br");
    await a.runs.writeBatch({
      nodeRuns: [nr, { ...nr, status: "success", row_count: 5, duration_ms: 12, finished_at: t0 }],
      logs: [
        { run_id: "br", node_id: "n1", level: "info", message: "first", timestamp: t0 },
        { run_id: "br", node_id: null, level: "error", message: "second", timestamp: t0 },
      ],
      outputs: [{ run_id: "br", node_id: "n1", kind: "output", data: { columns: ["x"], rows: [{ x: 1 }] } }],
    });
    await a.runs.writeBatch({
      nodeRuns: [{ ...nr, status: "failed", attempt: 2, error: "boom" }],
      logs: [],
      outputs: [{ run_id: "br", node_id: "n1", kind: "output", data: { columns: ["x"], rows: [{ x: 2 }] } }],
    });
    expect(await b.runs.nodeRuns("br")).toEqual([{ ...nr, status: "failed", attempt: 2, error: "boom" }]);
    expect((await b.runs.logs("br")).map((l) => l.message)).toEqual(["first", "second"]);
    expect((await b.runs.logs("br", { level: "error" })).map((l) => l.message)).toEqual(["second"]);
    expect((await b.runs.logs("br", { node_id: "n1" })).map((l) => l.message)).toEqual(["first"]);
    expect(await b.runs.output("br", "n1", "output")).toEqual({ columns: ["x"], rows: [{ x: 2 }] });
    // a large kept output's parts go with it; the other kinds stay
    await a.runs.writeBatch({
      nodeRuns: [],
      logs: [],
      outputs: [
        { run_id: "br", node_id: "n1", kind: "output:1", data: [{ x: 1 }] },
        { run_id: "br", node_id: "n1", kind: "output:2", data: [{ x: 2 }] },
        { run_id: "br", node_id: "n1", kind: "preview", data: { columns: ["x"], rows: [] } },
      ],
    });
    expect(await b.runs.output("br", "n1", "output:2")).toEqual([{ x: 2 }]);
    await b.runs.deleteOutputs("br", "output");
    expect(await a.runs.output("br", "n1", "output")).toBeNull();
    expect(await a.runs.output("br", "n1", "output:1")).toBeNull();
    expect(await a.runs.output("br", "n1", "output:2")).toBeNull();
    expect(await a.runs.output("br", "n1", "preview")).toEqual({ columns: ["x"], rows: [] });
  });

  it(`${dialect}: an output given as its JSON text (JsonText) is stored as that text and reads back as its value`, async () => {
    const data = {
      columns: ["x", "t"],
      rows: [
        { x: 1, t: 'quote " backslash \\ line\n é 😀' },
        { x: null, t: "" },
      ],
    };
    await a.runs.writeBatch({
      nodeRuns: [],
      logs: [],
      outputs: [{ run_id: "jt", node_id: "n1", kind: "output", data: new JsonText(JSON.stringify(data)) }],
    });
    expect(await b.runs.output("jt", "n1", "output")).toEqual(data);
  });

  it(`${dialect}: node runs of several runs in one call, each run's in node-run id order`, async () => {
    const nodeRun = (id: string, run_id: string, node_id: string) =>
      nodeRunRow(id, run_id, { node_id, status: "success", row_count: 3, duration_ms: 4, finished_at: t0 });
    await a.runs.writeBatch({
      nodeRuns: [
        nodeRun("m-2", "many-a", "load"),
        nodeRun("m-1", "many-a", "extract"),
        nodeRun("m-3", "many-b", "extract"),
        nodeRun("m-4", "many-other", "extract"),
      ],
      logs: [],
      outputs: [],
    });
    const found = await b.runs.nodeRunsOfRuns(["many-a", "many-b", "many-none"]);
    expect(found.map((n) => [n.run_id, n.id])).toEqual([
      ["many-a", "m-1"],
      ["many-a", "m-2"],
      ["many-b", "m-3"],
    ]);
    expect(found.filter((n) => n.run_id === "many-a")).toEqual(await b.runs.nodeRuns("many-a"));
    expect(await b.runs.nodeRunsOfRuns([])).toEqual([]);
  });

  it(`${dialect}: list newest first with totals; latest and last success`, async () => {
    await a.runs.insert([
      run("l-1", {
        pipeline_id: "p-list",
        created_at: "2026-02-01T00:00:00.000Z",
        status: "success",
        finished_at: "2026-02-01T00:01:00.000Z",
      }),
      run("l-2", { pipeline_id: "p-list", created_at: "2026-02-02T00:00:00.000Z", status: "failed" }),
      run("l-3", { pipeline_id: "p-list", created_at: "2026-02-03T00:00:00.000Z" }),
    ]);
    const page = await b.runs.listForPipeline("p-list", { page: 1, per_page: 2 });
    expect(page.total).toBe(3);
    expect(page.items.map((r) => r.id)).toEqual(["l-3", "l-2"]);
    expect((await b.runs.latest("p-list"))?.id).toBe("l-3");
    expect(await b.runs.lastSuccessFinishedAt("p-list")).toBe("2026-02-01T00:01:00.000Z");
    expect(await b.runs.lastSuccessFinishedAt("nope")).toBeNull();
  });

  it(`${dialect}: DLQ entries list (resolved hidden by default, limit) and resolve`, async () => {
    const entry = (id: string, created_at: string) => ({
      id,
      pipeline_id: "p-dlq",
      run_id: "r",
      node_id: "n",
      node_name: "N",
      error: "bad",
      payload: [{ a: 1 }],
      created_at,
      resolved: false,
      resolved_at: null,
    });
    await a.runs.insertDlq([entry("d1", "2026-01-01T00:00:00.000Z"), entry("d2", "2026-01-02T00:00:00.000Z")]);
    expect((await b.runs.listDlq("p-dlq", false, 50, 1e9)).map((e) => e.id)).toEqual(["d2", "d1"]);
    expect((await b.runs.listDlq("p-dlq", false, 1, 1e9)).map((e) => e.id)).toEqual(["d2"]);
    expect(await b.runs.resolveDlq("p-dlq", "d1", t0)).toBe(true);
    expect(await b.runs.resolveDlq("other", "d2", t0)).toBe(false);
    expect((await b.runs.listDlq("p-dlq", false, 50, 1e9)).map((e) => e.id)).toEqual(["d2"]);
    const all = await b.runs.listDlq("p-dlq", true, 50, 1e9);
    expect(all.find((e) => e.id === "d1")).toMatchObject({ resolved: true, resolved_at: t0, payload: [{ a: 1 }] });
  });

  it(`${dialect}: the DLQ list ends once its entries' payloads fill the characters it may hold (the newest always)`, async () => {
    const text = "x".repeat(1000); // ASCII: MySQL's length counts bytes, the others characters
    const entry = (id: string, day: number) => ({
      id,
      pipeline_id: "p-dlq-size",
      run_id: "r",
      node_id: "n",
      node_name: "N",
      error: "bad",
      payload: [{ text }],
      created_at: `2026-01-0${day}T00:00:00.000Z`,
      resolved: false,
      resolved_at: null,
    });
    await a.runs.insertDlq([entry("s1", 1), entry("s2", 2), entry("s3", 3), entry("s4", 4)]);
    const ids = async (maxChars: number) => (await b.runs.listDlq("p-dlq-size", false, 50, maxChars)).map((e) => e.id);
    expect(await ids(1e9)).toEqual(["s4", "s3", "s2", "s1"]);
    expect(await ids(2_500)).toEqual(["s4", "s3"]);
    expect(await ids(10)).toEqual(["s4"]);
  });
});
