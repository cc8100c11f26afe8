import { describe, expect, it } from "vitest";
import { applyRule, transformConfig, transformNode } from "../../../src/engine/nodes/transform.js";
import { profileDataSet, profileInSlices } from "../../../src/engine/profile.js";
import type { DataSet, Row } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";

/**
 * `n` rows; every row from the 3,000th on repeats the one 2,500 before it in `region` and `code`, so that rows a
 * deduplicate drops sit in other chunks (of 1,024 rows) than the rows they repeat.
 */
function manyRows(n: number): DataSet {
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const k = i >= 3000 ? i - 2500 : i;
    rows.push({ id: i, region: ["eu", "us", "apac"][k % 3], code: `c${k}`, amount: String(k * 1.5), note: null });
  }
  return { columns: ["id", "region", "code", "amount", "note"], rows };
}

const RULES = [
  { type: "cast", columns: ["amount"], to: "float" },
  { type: "add_column", name: "gross", expression: "amount * 1.2 + params.fee|number" },
  { type: "filter", expression: 'region != "us" || gross > 100' },
  { type: "deduplicate", columns: ["region", "code"] },
  { type: "fill_null", value: "-" },
  { type: "replace", column: "region", values: { eu: "europe" } },
  { type: "apply_function", column: "code", function: "upper", target: "code_uc" },
  { type: "rename", mapping: { gross: "gross_eur" } },
  { type: "drop", columns: ["note"] },
  { type: "select", columns: ["id", "region", "code_uc", "gross_eur"] },
  { type: "sort", columns: "gross_eur", descending: true },
  { type: "limit", count: 4000 },
];

describe("transform over many rows, in slices", () => {
  it("gives what its rules give applied to all the rows in one go", async () => {
    const input = manyRows(12_000);
    const params = { fee: "2" };
    const config = transformConfig.parse({ rules: RULES });
    let expected = input;
    for (const rule of config.rules) expected = applyRule(expected, rule, params);

    const { ctx } = nodeContext("transform", { params });
    const out = (await transformNode.run(ctx, config, [input])).output;

    expect(out.columns).toEqual(expected.columns);
    expect(out.rows).toEqual(expected.rows);
    // the repeats were dropped, though each sits in another chunk than the row it repeats
    expect(new Set(out.rows.map((r) => r.code_uc)).size).toBe(out.rows.length);
    expect(out.rows.length).toBe(4000);
    // and the rows it was given are as they were
    expect(input.rows[5000]).toEqual({ id: 5000, region: "us", code: "c2500", amount: "3750", note: null });
  });

  it("deduplicates by all of each row's own keys across chunks, rows with keys beyond the columns included", async () => {
    const input = manyRows(6_000);
    input.rows.forEach((r, i) => {
      if (i % 4 === 0) r.extra = i % 8; // a key the columns do not name (a code node's output can have one)
      delete r.id;
    });
    const config = transformConfig.parse({ rules: [{ type: "deduplicate" }] });
    const { ctx } = nodeContext("transform");
    const out = (await transformNode.run(ctx, config, [input])).output;
    expect(out.rows).toEqual(applyRule(input, config.rules[0]!, {}).rows);
    expect(out.rows.length).toBeLessThan(6_000);
  });

  it("sorts as one stable sort does: ties keep their order, nulls last, ascending and descending", async () => {
    const input = manyRows(20_000);
    input.rows.forEach((r, i) => {
      if (i % 11 === 0) r.region = null;
    });
    for (const sort of [
      { type: "sort", columns: "region" },
      { type: "sort", columns: ["region", "code"], descending: true },
    ]) {
      const config = transformConfig.parse({ rules: [sort] });
      const { ctx } = nodeContext("transform");
      const out = (await transformNode.run(ctx, config, [input])).output;
      expect(out.rows).toEqual(applyRule(input, config.rules[0]!, {}).rows);
      expect(out.rows.at(-1)?.region).toBeNull();
    }
  });

  it("names the rule that fails over many rows as over few, also when the node's signal is aborted already", async () => {
    const config = transformConfig.parse({ rules: [{ type: "select", columns: ["id", "nope"] }] });
    const controller = new AbortController();
    controller.abort(new Error("the run was cancelled"));
    for (const signal of [undefined, controller.signal]) {
      const { ctx } = nodeContext("transform", signal ? { signal } : {});
      await expect(transformNode.run(ctx, config, [manyRows(5_000)])).rejects.toThrow(
        "rule 1 (select): select: unknown column(s) nope",
      );
    }
  });

  it("lets the event loop turn while it works: a callback queued before it runs before it ends", async () => {
    // about half a second of rules on this machine; any machine a hundred times faster still needs several slices
    const input = manyRows(200_000);
    const config = transformConfig.parse({
      rules: [
        { type: "add_column", name: "a", expression: "id * 2" },
        { type: "add_column", name: "b", expression: "a + 1" },
        { type: "filter", expression: "b > 0" },
      ],
    });
    const { ctx } = nodeContext("transform");
    let turnedAt = Number.POSITIVE_INFINITY;
    setImmediate(() => (turnedAt = performance.now()));
    const out = (await transformNode.run(ctx, config, [input])).output;
    const endedAt = performance.now();
    expect(out.rows).toHaveLength(200_000);
    expect(turnedAt).toBeLessThan(endedAt);
  });

  it("works in slices over few rows of many columns too: a callback queued before it runs before it ends", async () => {
    // 600 rows of 1,000 columns: a rename of them all is a few hundred milliseconds of work here
    const columns = Array.from({ length: 1000 }, (_, i) => `c${i}`);
    const rows = Array.from({ length: 600 }, (_, r) => Object.fromEntries(columns.map((c, i) => [c, r + i])));
    const mapping = Object.fromEntries(columns.map((c) => [c, `${c}_new`]));
    const config = transformConfig.parse({ rules: [{ type: "rename", mapping }] });
    const { ctx } = nodeContext("transform");
    let turnedAt = Number.POSITIVE_INFINITY;
    setImmediate(() => (turnedAt = performance.now()));
    const out = (await transformNode.run(ctx, config, [{ columns, rows }])).output;
    const endedAt = performance.now();
    expect(out.rows[599]?.c999_new).toBe(599 + 999);
    expect(turnedAt).toBeLessThan(endedAt);
  });

  it("stops between two slices once its signal is aborted (its timeout, a cancel), with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("timed out after 1 s (attempt 1)");
    const { ctx } = nodeContext("transform", { signal: controller.signal });
    const config = transformConfig.parse({ rules: [{ type: "add_column", name: "a", expression: "id * 2" }] });
    setImmediate(() => controller.abort(reason));
    await expect(transformNode.run(ctx, config, [manyRows(200_000)])).rejects.toBe(reason);
  });
});

describe("a profile made in slices", () => {
  it("is the profile made in one go", async () => {
    // the same rows in two data sets: each is profiled anew (a data set's profile is remembered)
    const rows = manyRows(20_000).rows.map((r, i) => ({ ...r, tags: i % 7 ? [r.region] : null, flag: i % 2 === 0 }));
    const columns = ["id", "region", "code", "amount", "note", "tags", "flag"];
    const inSlices = await profileInSlices("n", { columns, rows });
    expect(inSlices).toEqual(profileDataSet("n", { columns, rows: [...rows] }));
    expect(inSlices.columns.find((c) => c.name === "code")).toMatchObject({ distinct_count: 17_500, type: "string" });
  });

  it("stops between two slices once its signal is aborted (a cancel of the run), with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("the run was cancelled");
    setImmediate(() => controller.abort(reason));
    const rows = manyRows(300_000).rows;
    await expect(
      profileInSlices("n", { columns: ["id", "region", "code", "amount"], rows }, controller.signal),
    ).rejects.toBe(reason);
  });
});
