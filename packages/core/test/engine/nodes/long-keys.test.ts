import { describe, expect, it } from "vitest";
import { transformConfig, transformNode } from "../../../src/engine/nodes/transform.js";
import { joinConfig, joinNode } from "../../../src/engine/nodes/join.js";
import { qualityConfig, qualityNode } from "../../../src/engine/nodes/quality.js";
import type { DataSet, Row } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";

/**
 * Rows told apart by long texts. V8 hashes a string of more than 16,383 characters by its length alone, so a Set or
 * Map of such keys that share a length keeps them all in one bucket and compares each new key with every one before
 * it: `deduplicate`, a `unique` check, `aggregate`'s groups and a join's index of 6,000 rows of one user's long texts
 * took 71 s. Keys that long must cost what keys of different lengths cost.
 *
 * The attack: 2,000 distinct texts of 18,006 characters each, alike but for their last six. The yardstick: 2,000
 * distinct texts of 17,006 to 19,005 characters (no two of one length), which V8 tells apart by length. A ratio of
 * times, so that the machine's speed cancels out: it was 20–100 before.
 */
const ROWS = 2_000;
const oneLength = (i: number) => "x".repeat(18_000) + String(i).padStart(6, "0");
const lengthsApart = (i: number) => "x".repeat(17_000 + i) + String(i).padStart(6, "0");

function texts(text: (i: number) => string): DataSet {
  const rows: Row[] = [];
  for (let i = 0; i < ROWS; i++) rows.push({ id: i, text: text(i) });
  // one repeat of the first text, so that the key is seen to tell equal texts together
  rows.push({ id: ROWS, text: text(0) });
  return { columns: ["id", "text"], rows };
}

/** The best of 3 alternating timings of `work` over each input: how much longer texts of one length take. */
async function ratioOfOneLength(work: (input: DataSet) => Promise<unknown>): Promise<number> {
  const attack = texts(oneLength);
  const yardstick = texts(lengthsApart);
  let attackBest = Infinity;
  let yardstickBest = Infinity;
  for (let i = 0; i < 3; i++) {
    let began = performance.now();
    await work(yardstick);
    yardstickBest = Math.min(yardstickBest, performance.now() - began);
    began = performance.now();
    await work(attack);
    attackBest = Math.min(attackBest, performance.now() - began);
  }
  return attackBest / yardstickBest;
}

describe("keys of long texts of one length", () => {
  it("deduplicate keeps each text once, as fast as for texts of different lengths", async () => {
    const config = transformConfig.parse({ rules: [{ type: "deduplicate", columns: ["text"] }] });
    const { ctx } = nodeContext("transform");
    const out = (await transformNode.run(ctx, config, [texts(oneLength)])).output;
    expect(out.rows.map((r) => r.id)).toEqual([...Array(ROWS).keys()]);
    expect(await ratioOfOneLength((input) => transformNode.run(ctx, config, [input]))).toBeLessThan(4);
  });

  it("aggregate makes one group per text, as fast as for texts of different lengths", async () => {
    const config = transformConfig.parse({
      rules: [{ type: "aggregate", group_by: ["text"], aggregations: [{ function: "count", as: "n" }] }],
    });
    const { ctx } = nodeContext("transform");
    const out = (await transformNode.run(ctx, config, [texts(oneLength)])).output;
    expect(out.rows).toHaveLength(ROWS);
    expect(out.rows[0]).toEqual({ text: oneLength(0), n: 2 });
    expect(await ratioOfOneLength((input) => transformNode.run(ctx, config, [input]))).toBeLessThan(4);
  });

  it("a unique check fails the repeat only, as fast as for texts of different lengths", async () => {
    const config = qualityConfig.parse({ checks: [{ type: "unique", column: "text" }], on_failure: "dlq" });
    const { ctx } = nodeContext("quality", { deadLetter: async () => undefined });
    const out = (await qualityNode.run(ctx, config, [texts(oneLength)])).output;
    expect(out.rows.map((r) => r.id)).toEqual([...Array(ROWS).keys()]);
    expect(await ratioOfOneLength((input) => qualityNode.run(ctx, config, [input]))).toBeLessThan(4);
  });

  it("a join on the text matches each row with its own, as fast as for texts of different lengths", async () => {
    const config = joinConfig.parse({ how: "inner", on: "text" });
    const { ctx } = nodeContext("join");
    const rightOf = (input: DataSet): DataSet => ({
      columns: ["text", "n"],
      rows: input.rows.slice(0, ROWS).map((r) => ({ text: r.text, n: (r.id as number) * 2 })),
    });
    const input = texts(oneLength);
    const out = (await joinNode.run(ctx, config, [input, rightOf(input)])).output;
    expect(out.rows).toHaveLength(ROWS + 1);
    expect(out.rows.every((r) => r.n === (r.id === ROWS ? 0 : (r.id as number) * 2))).toBe(true);
    expect(await ratioOfOneLength((left) => joinNode.run(ctx, config, [left, rightOf(left)]))).toBeLessThan(4);
  });
});
