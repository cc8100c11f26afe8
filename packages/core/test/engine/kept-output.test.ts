import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../../src/engine/dataset.js";
import { dataSetJsonParts } from "../../src/engine/dataset-json.js";
import { keepOutput, keptOutput } from "../../src/engine/kept-output.js";
import { Slices } from "../../src/engine/slices.js";
import { WriteBuffer } from "../../src/engine/write-buffer.js";
import { createKnexStore } from "../../src/store/knex/create-knex-store.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";

/** A large kept output is written in parts (engine/kept-output.ts); a resume must read it whole, or not at all. */
let db: TestDatabase;
let store: Awaited<ReturnType<typeof createKnexStore>>;
beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  store = await createKnexStore(db.url);
});
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

const columns = ["id", "text"];
const rowsOf = (tag: string, n: number): Row[] => Array.from({ length: n }, (_, i) => ({ id: i, text: `${tag}${i}` }));
const partsOf = async (rows: Row[]) => (await dataSetJsonParts({ columns, rows }, new Slices(), 1e9, 2_000))!;
const newBuffer = () => new WriteBuffer(store.runs, { onError: (e) => expect.fail(String(e)) });
const at = (runId: string) => ({ runId, nodeId: "read", claim: undefined });

describe("a kept output in parts", () => {
  it("reads back whole, in order, and a small one as one row", async () => {
    const buffer = newBuffer();
    const rows = rowsOf("a", 1_000);
    const json = await partsOf(rows);
    expect(json.rows.length).toBeGreaterThan(5);
    await keepOutput(buffer, at("r-1"), json);
    await buffer.flush();
    expect(await keptOutput(store.runs, "r-1", "read")).toEqual({ columns, rows });

    await keepOutput(buffer, at("r-2"), await partsOf(rows.slice(0, 3)));
    await buffer.flush();
    expect(await store.runs.output("r-2", "read", "output")).toEqual({ columns, rows: rows.slice(0, 3) });
    expect(await keptOutput(store.runs, "r-2", "read")).toEqual({ columns, rows: rows.slice(0, 3) });
  });

  it("is not read at all when its writing stopped half-way, even over one kept before", async () => {
    const buffer = newBuffer();
    const before = rowsOf("old", 1_000);
    await keepOutput(buffer, at("r-3"), await partsOf(before));
    await buffer.flush();
    expect(await keptOutput(store.runs, "r-3", "read")).toEqual({ columns, rows: before });

    // the run fails again with other rows, and the server stops after the first part's transaction
    let flushes = 0;
    const stopping = {
      output: buffer.output.bind(buffer),
      flush: async () => {
        await buffer.flush();
        if (++flushes === 1) throw new Error("the server stopped");
      },
    };
    await expect(keepOutput(stopping, at("r-3"), await partsOf(rowsOf("new", 1_000)))).rejects.toThrow("stopped");
    await buffer.flush();
    expect(await keptOutput(store.runs, "r-3", "read")).toBeNull();
  });

  it("is not read when a part is missing or is not a list of rows", async () => {
    const buffer = newBuffer();
    await keepOutput(buffer, at("r-4"), await partsOf(rowsOf("a", 1_000)));
    await keepOutput(buffer, at("r-5"), await partsOf(rowsOf("a", 1_000)));
    await buffer.flush();
    await store.knex("node_outputs").where({ run_id: "r-4", kind: "output:2" }).delete();
    await store.knex("node_outputs").where({ run_id: "r-5", kind: "output:2" }).update({ data: '{"rows":[]}' });
    expect(await keptOutput(store.runs, "r-4", "read")).toBeNull();
    expect(await keptOutput(store.runs, "r-5", "read")).toBeNull();
  });
});
