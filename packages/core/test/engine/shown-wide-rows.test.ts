import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Sluice } from "../../src/index.js";
import type { Row } from "../../src/engine/dataset.js";
import type { DlqPayload } from "../../src/engine/dlq-payload.js";
import { createNodeContext } from "../../src/engine/node-context.js";
import { SHOWN_ITEMS } from "../../src/engine/shown-value.js";
import { DRY_RUN_ROWS } from "../../src/model/run.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { probe } from "./fixture-node-types.js";
import { expectSliced, holdOf } from "./nodes/event-loop-hold.js";
import { createTestSluice, runEnded } from "./test-sluice.js";

/**
 * Rows as people read them (previews, dry runs, DLQ entries) show at most SHOWN_ITEMS keys of each, but V8 lists
 * every key of a row before the first is read, and a row of 60,000 columns took 8 ms to list; it was listed twice
 * (the keys not shown are counted), for all 50 rows of a preview in one go (bench/http-big-nodes.mjs --node wide),
 * and a DLQ entry's 10,000 rows were shown the same way. Rows are now shown one at a time with a look at the clock
 * after each, and each is listed once. What a row costs is not known before it is shown: its columns need not say (a
 * custom node type's), nor its first rows.
 */
let db: TestDatabase;
let sluice: Sluice;

beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  sluice = await createTestSluice(db);
  await sluice.start();
});
afterAll(async () => {
  await sluice?.close();
  await db?.drop();
});
beforeEach(() => probe.reset());

const ROWS = 50;
const COLUMNS = 20_000;

/** `rows` rows of `columns` columns `c1`, `c2`, …, each value its row and column; `c1` is null. */
function wideRows(rows: number, columns: number) {
  const names = Array.from({ length: columns }, (_, c) => `c${c + 1}`);
  const made: Row[] = [];
  for (let r = 0; r < rows; r++) {
    const row: Row = {};
    for (const column of names) row[column] = column === "c1" ? null : `${r}:${column}`;
    made.push(row);
  }
  return { columns: names, rows: made };
}

/** A pipeline whose one node emits `data` (ROWS rows of COLUMNS columns), made outside the run (`probe_rows`). */
async function widePipeline(data: { columns: string[]; rows: Row[] } = wideRows(ROWS, COLUMNS)): Promise<string> {
  probe.dataSets.set("wide", data);
  const p = await sluice.pipelines.create({
    name: `wide rows ${Math.random()}`,
    nodes: [{ id: "read", type: "source_file", config: { probe_rows: "wide" } }],
    edges: [],
  });
  return p.id;
}

const count = (n: number) => n.toLocaleString("en-US");

/** A quality node's context whose DLQ entries are kept in `entries` (`signal`: the node's). */
function dlqContext(signal?: AbortSignal) {
  const entries: DlqPayload[] = [];
  const ctx = createNodeContext({
    runId: "r",
    pipelineId: "p",
    node: { id: "check", type: "quality", config: {} },
    fileRoots: [],
    signal,
    deadLetter: async (payload) => void entries.push(payload),
  });
  return { ctx, entries };
}

describe("the preview of very wide rows", () => {
  it("is made while the event loop keeps turning", async () => {
    const id = await widePipeline();
    const hold = await holdOf(async () => {
      const run = await sluice.runs.trigger(id);
      return runEnded(sluice, run.id);
    });
    expect(hold.result.status).toBe("success");
    expectSliced(hold);
  });

  it("is made while the event loop keeps turning where the rows are wider than their columns say", async () => {
    const { rows } = wideRows(ROWS, COLUMNS);
    const id = await widePipeline({ columns: ["c1"], rows }); // as a custom node type may declare them
    const hold = await holdOf(async () => runEnded(sluice, (await sluice.runs.trigger(id)).id));
    expect(hold.result.status).toBe("success");
    expectSliced(hold);
    const preview = await sluice.runs.preview(hold.result.id, "read");
    expect(preview.rows[ROWS - 1]!["…"]).toBe(`${count(COLUMNS)} keys`);
  });

  it("is made, with the profile, while the event loop keeps turning where each row holds a wide object", async () => {
    const { rows: wide } = wideRows(ROWS, COLUMNS);
    const id = await widePipeline({ columns: ["id", "payload"], rows: wide.map((payload, id) => ({ id, payload })) });
    const hold = await holdOf(async () => runEnded(sluice, (await sluice.runs.trigger(id)).id));
    expect(hold.result.status).toBe("success");
    expectSliced(hold);
    const preview = await sluice.runs.preview(hold.result.id, "read");
    expect((preview.rows[0]!.payload as Row)["…"]).toBe(`${count(COLUMNS)} keys`);
    const profile = await sluice.runs.profile(hold.result.id, "read");
    expect(profile.columns.find((c) => c.name === "payload")).toMatchObject({ type: "object", distinct_count: ROWS });
  });

  it("shows each row's first keys and counts the others, as before", async () => {
    const id = await widePipeline();
    const run = await sluice.runs.trigger(id);
    expect((await runEnded(sluice, run.id)).status).toBe("success");
    const preview = await sluice.runs.preview(run.id, "read");
    expect(preview.rows).toHaveLength(ROWS);
    expect(preview.columns).toHaveLength(SHOWN_ITEMS + 1);
    expect(preview.columns.at(-1)).toBe(`… (${count(COLUMNS)} items)`);
    preview.rows.forEach((row, r) => {
      const keys = Object.keys(row);
      expect(keys).toHaveLength(SHOWN_ITEMS + 1);
      expect(keys.slice(0, 3)).toEqual(["c1", "c2", "c3"]);
      expect(row["c1"]).toBeNull();
      expect(row[`c${SHOWN_ITEMS}`]).toBe(`${r}:c${SHOWN_ITEMS}`);
      expect(row[`c${SHOWN_ITEMS + 1}`]).toBeUndefined();
      expect(row["…"]).toBe(`${count(COLUMNS)} keys`);
    });
  });

  it("a dry run shows its first rows the same way", async () => {
    const id = await widePipeline();
    const result = await sluice.runs.dryRun(id, {});
    const read = result["read"]!;
    expect(read.status).toBe("success");
    expect(read.rows).toHaveLength(DRY_RUN_ROWS);
    for (const row of read.rows) {
      expect(Object.keys(row)).toHaveLength(SHOWN_ITEMS + 1);
      expect(row["…"]).toBe(`${count(COLUMNS)} keys`);
    }
  });

  it("a node's DLQ entry is made while the event loop keeps turning, its first rows narrow and the rest wide", async () => {
    const { ctx, entries } = dlqContext();
    const narrow = Array.from({ length: 400 }, (_, i): Row => ({ c1: null, c2: i }));
    const { rows: wide } = wideRows(1_000, 1_500);
    const hold = await holdOf(() => ctx.deadLetter([...narrow, ...wide], "c1 is null"));
    expectSliced(hold);
    const written = entries[0]!.rows;
    // the narrow rows, then as many wide ones as an entry's 4 MB hold
    expect(written.length).toBeGreaterThan(500);
    expect(written.length).toBeLessThan(1_400);
    expect(written[0]).toEqual({ c1: null, c2: 0 });
    expect(written[400]!["…"]).toBe(`${count(1_500)} keys`);
    expect(written.at(-1)!["c1000"]).toBe(`${written.length - 401}:c1000`);
  });

  it("a node's DLQ entry shows no more rows than it keeps", async () => {
    const shown: Row[] = [];
    const { ctx, entries } = dlqContext();
    // rows of about 40,000 characters as JSON: an entry keeps about 4 MB of them, so about a hundred
    const big = Array.from({ length: 2_000 }, (_, i) => {
      const row: Row = { i };
      for (let t = 0; t < 10; t++) row[`t${t}`] = "x".repeat(3_990);
      return row;
    });
    const watched = big.map((row) => new Proxy(row, { ownKeys: (r) => (shown.push(r), Reflect.ownKeys(r)) }));
    await ctx.deadLetter(watched, "too big");
    const payload = entries[0];
    expect(payload!.rows.length).toBeGreaterThan(0);
    expect(payload!.rows.length).toBeLessThan(200);
    expect(payload!.note).toContain(`${2_000 - payload!.rows.length} of 2000 rows not kept`);
    expect(shown.length).toBeLessThanOrEqual(payload!.rows.length + 1);
  });

  it("a node's DLQ entry is written whole though the node is stopped meanwhile, and its promise does not reject", async () => {
    const controller = new AbortController();
    const { ctx, entries } = dlqContext(controller.signal);
    const { rows } = wideRows(200, 1_500); // shown over several slices; fewer than an entry's 4 MB hold
    const sent = ctx.deadLetter(rows, "c1 is null"); // a custom node may await it later, or never
    setImmediate(() => controller.abort(new Error("timed out")));
    await expect(sent).resolves.toBeUndefined();
    expect(controller.signal.aborted).toBe(true);
    expect(entries[0]?.rows).toHaveLength(200);
  });
});
