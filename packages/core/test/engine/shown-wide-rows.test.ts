import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Sluice } from "../../src/index.js";
import type { Row } from "../../src/engine/dataset.js";
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
 * (the keys not shown are counted), for all 50 rows of a preview in one go. A run of 40 rows of 60,000 columns held
 * the server for 0.8–1 s there (bench/http-big-nodes.mjs --node wide), and a DLQ entry's 10,000 rows are shown the
 * same way. The rows are now shown a piece at a time, each listed once.
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

/** A pipeline whose one node emits ROWS rows of COLUMNS columns, made outside the run (`probe_rows`). */
async function widePipeline(): Promise<string> {
  probe.dataSets.set("wide", wideRows(ROWS, COLUMNS));
  const p = await sluice.pipelines.create({
    name: `wide rows ${Math.random()}`,
    nodes: [{ id: "read", type: "source_file", config: { probe_rows: "wide" } }],
    edges: [],
  });
  return p.id;
}

const count = (n: number) => n.toLocaleString("en-US");

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

  it("a node's DLQ entry of a thousand wide rows is made while the event loop keeps turning", async () => {
    let written: Row[] = [];
    const ctx = createNodeContext({
      runId: "r",
      pipelineId: "p",
      node: { id: "check", type: "quality", config: {} },
      fileRoots: [],
      deadLetter: async (rows) => {
        written = rows;
      },
    });
    const { rows } = wideRows(1_000, 1_500);
    const hold = await holdOf(() => ctx.deadLetter(rows, "c1 is null"));
    expectSliced(hold);
    expect(written).toHaveLength(1_000);
    expect(written[0]!["…"]).toBe(`${count(1_500)} keys`);
    expect(written[999]!["c1000"]).toBe("999:c1000");
  });
});
