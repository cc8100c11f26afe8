import { describe, expect, it } from "vitest";
import { dataSetJson } from "../../src/engine/dataset-json.js";
import type { DataSet, Row } from "../../src/engine/dataset.js";
import { Slices } from "../../src/engine/slices.js";

/** dataSetJson makes a failed run's kept output in slices: it must read back as what JSON.stringify wrote. */
describe("dataSetJson", () => {
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
