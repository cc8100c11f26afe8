import { describe, expect, it } from "vitest";
import { dataSetJsonParts } from "../../src/engine/dataset-json.js";
import type { DataSet, Row } from "../../src/engine/dataset.js";
import { Slices } from "../../src/engine/slices.js";

/** The JSON of `data` in one part, as a kept output of one part is written (engine/kept-output.ts). */
async function dataSetJson(data: DataSet, slices: Slices, limit: number): Promise<string | null> {
  const parts = await dataSetJsonParts(data, slices, limit, Number.POSITIVE_INFINITY);
  return parts && `{"columns":${parts.columns},"rows":${parts.rows[0]}}`;
}

/** A failed run's kept output is made in slices: it must read back as what JSON.stringify wrote. */
describe("a data set's JSON in one part", () => {
  const cases: Row[][] = [
    [],
    [{ a: 1 }],
    [{ a: 1, b: undefined, c: null, d: 'x"y\\z\n', e: [1, { f: 2 }], g: new Date(0), h: Number.NaN }],
    Array.from({ length: 5_000 }, (_, i) => ({ id: i, text: `r${i}`, nested: { i } })),
  ];
  for (const rows of cases)
    it(`writes ${rows.length} rows as JSON.stringify does`, async () => {
      const data: DataSet = { columns: ["a", "b"], rows };
      expect(await dataSetJson(data, new Slices(), 1e9)).toBe(JSON.stringify(data));
    });

  it("stops at the limit and gives null: the output is not kept", async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i }));
    const json = JSON.stringify({ columns: ["id"], rows });
    expect(await dataSetJson({ columns: ["id"], rows }, new Slices(), json.length)).toBe(json);
    expect(await dataSetJson({ columns: ["id"], rows }, new Slices(), json.length - 1)).toBeNull();
  });

  it("gives null for a row or column that JSON cannot write, or a data set that is not one", async () => {
    const cyclic: Row = { id: 1 };
    cyclic.self = cyclic;
    expect(await dataSetJson({ columns: ["id"], rows: [{ id: 0 }, cyclic] }, new Slices(), 1e9)).toBeNull();
    expect(await dataSetJson({ columns: ["n"], rows: [{ n: 1n }] }, new Slices(), 1e9)).toBeNull();
    // a custom node type's output: columns that are not text, rows that are not a list
    const odd = (value: unknown) => value as DataSet;
    expect(await dataSetJson(odd({ columns: [1n], rows: [] }), new Slices(), 1e9)).toBeNull();
    expect(await dataSetJson(odd({ columns: ["a"], rows: { 0: { a: 1 } } }), new Slices(), 1e9)).toBeNull();
  });
});

/** dataSetJsonParts makes a large kept output's parts, each written on its own (engine/kept-output.ts). */
describe("dataSetJsonParts", () => {
  const rows = Array.from({ length: 3_000 }, (_, i) => ({ id: i, text: "x".repeat(i % 40) }));
  const data: DataSet = { columns: ["id", "text"], rows };

  it("gives lists of whole rows, in order, each within the part's size unless one row is longer", async () => {
    const parts = await dataSetJsonParts(data, new Slices(), 1e9, 5_000);
    expect(parts?.columns).toBe(JSON.stringify(data.columns));
    expect(parts?.rows.length).toBeGreaterThan(10);
    for (const part of parts?.rows ?? []) expect(part.length).toBeLessThanOrEqual(5_000);
    expect((parts?.rows ?? []).flatMap((p) => JSON.parse(p) as Row[])).toEqual(rows);

    const long = { id: -1, text: "y".repeat(10_000) };
    const withLong = await dataSetJsonParts(
      { columns: ["id"], rows: [rows[0]!, long, rows[1]!] },
      new Slices(),
      1e9,
      5_000,
    );
    expect(withLong?.rows).toEqual([JSON.stringify([rows[0]]), JSON.stringify([long]), JSON.stringify([rows[1]])]);
  });

  it("gives one empty list for no rows, and null past the limit, counted as for one part", async () => {
    expect((await dataSetJsonParts({ columns: ["a"], rows: [] }, new Slices(), 1e9, 10))?.rows).toEqual(["[]"]);
    const json = JSON.stringify(data);
    expect(await dataSetJsonParts(data, new Slices(), json.length, 5_000)).not.toBeNull();
    expect(await dataSetJsonParts(data, new Slices(), json.length - 1, 5_000)).toBeNull();
  });
});
