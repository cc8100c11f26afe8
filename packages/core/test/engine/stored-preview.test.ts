import { describe, expect, it } from "vitest";
import type { Row } from "../../src/engine/dataset.js";
import { SecretScrubber } from "../../src/engine/secret-scrubber.js";
import { previewOf, storedPreview, type StoredPreview } from "../../src/engine/stored-preview.js";

/** What the API shows for a preview stored as `storedPreview` wrote it, through the database's JSON text. */
const shownAfterStorage = (columns: string[], rows: unknown[]) => {
  const text = JSON.stringify(storedPreview("n1", columns, rows as Row[]));
  return { text, shown: JSON.stringify(previewOf(JSON.parse(text) as StoredPreview)) };
};
/** What the API showed when previews were stored as their rows. */
const shownBefore = (columns: string[], rows: unknown[]) => JSON.stringify({ node_id: "n1", columns, rows });

describe("previews stored as lists of values", () => {
  it("rows holding exactly the columns, in order, are stored without their keys and shown as they were", () => {
    const columns = ["id", "region", "amount", "note", "tags", "when"];
    const rows = Array.from({ length: 20 }, (_, i) => ({
      id: i,
      region: i % 2 ? "us" : "eu",
      amount: i * 1.5,
      note: i % 3 ? null : `quote " and \\ backslash ${i}`,
      tags: { nested: [i, "x"] },
      when: new Date(Date.UTC(2026, 0, i + 1)),
    }));
    const { text, shown } = shownAfterStorage(columns, rows);
    expect(shown).toBe(shownBefore(columns, rows));
    expect(text).not.toContain('"region"' + ":");
    expect(text.length).toBeLessThan(shownBefore(columns, rows).length * 0.75);
  });

  it("keys in another order, a missing key or an extra key: the rows are stored as they are", () => {
    const columns = ["a", "b"];
    for (const rows of [
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [{ a: 1, b: 2 }, { a: 1 }],
      [
        { a: 1, b: 2 },
        { a: 1, b: 2, c: 3 },
      ],
    ]) {
      const { text, shown } = shownAfterStorage(columns, rows);
      expect(shown).toBe(shownBefore(columns, rows));
      expect(JSON.parse(text)).toHaveProperty("rows");
    }
  });

  it("a value JSON leaves out of an object (undefined, a function) keeps the rows as they are", () => {
    const rows = [
      { a: 1, b: undefined },
      { a: 2, b: () => 1 },
    ];
    for (const row of rows) {
      const { shown } = shownAfterStorage(["a", "b"], [row]);
      expect(shown).toBe(shownBefore(["a", "b"], [row]));
    }
  });

  it("column names that are numbers, __proto__ and constructor come back as own keys, in their order", () => {
    const columns = ["1", "2", "__proto__", "constructor"];
    const row: Row = {};
    Object.defineProperty(row, "__proto__", { value: "p", enumerable: true, writable: true, configurable: true });
    row["1"] = "one";
    row["2"] = "two";
    row["constructor"] = "c";
    // Object.keys puts integer keys first, as the columns do here
    expect(Object.keys(row)).toEqual(columns);
    const { text, shown } = shownAfterStorage(columns, [row]);
    expect(JSON.parse(text)).toHaveProperty("values");
    expect(shown).toBe(shownBefore(columns, [row]));
    const back = previewOf(JSON.parse(text) as StoredPreview).rows[0]!;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.hasOwn(back, "__proto__")).toBe(true);
  });

  it("rows a custom node type may hand on that are not plain objects are stored as they are", () => {
    class Order {
      constructor(readonly id: number) {}
    }
    const cases: [string[], unknown[]][] = [
      [["0", "1"], [[1, 2]]],
      [["0", "1"], ["US"]],
      [[], [new Date(0), 5, null]],
      [["id"], [new Order(1)]],
      [[], [null, undefined]],
    ];
    for (const [columns, rows] of cases)
      expect(shownAfterStorage(columns, rows).shown).toBe(shownBefore(columns, rows));
  });

  it("a value whose JSON depends on its property's name, or a bigint, keeps the rows as they are", () => {
    // a Date with a toJSON of its own (a custom node type's value)
    const at: unknown = Object.assign(new Date(0), {
      toJSON: (key?: string) => (key === "at" ? "as a property" : undefined),
    });
    expect(shownAfterStorage(["at"], [{ at }]).shown).toBe(shownBefore(["at"], [{ at }]));
    const big = storedPreview("n1", ["n"], [{ n: 10n }]);
    expect(big).toHaveProperty("rows");
    // Dates and Buffers write the same JSON whatever their key
    const plain = { at: new Date(0), bytes: Buffer.from("ab") };
    const { text, shown } = shownAfterStorage(["at", "bytes"], [plain]);
    expect(JSON.parse(text)).toHaveProperty("values");
    expect(shown).toBe(shownBefore(["at", "bytes"], [plain]));
  });

  it("rows as a run's scrubber shows them (masked, cut) come back as they were shown", () => {
    const scrubber = new SecretScrubber();
    scrubber.add("hunter2-secret");
    const rows = [
      { id: 1, note: "password hunter2-secret leaked", long: "x".repeat(5000), at: new Date(0) },
      { id: 2, note: null, long: "short", at: new Date(1) },
    ].map((row) => scrubber.shown(row));
    const columns = scrubber.shown(["id", "note", "long", "at"]);
    const { text, shown } = shownAfterStorage(columns, rows);
    expect(JSON.parse(text)).toHaveProperty("values");
    expect(shown).toBe(shownBefore(columns, rows));
    expect(shown).not.toContain("hunter2-secret");
  });

  it("no rows, and a preview stored before as rows, are shown as they are", () => {
    expect(shownAfterStorage(["a"], []).shown).toBe(shownBefore(["a"], []));
    const old = { node_id: "n1", columns: ["a"], rows: [{ a: 1 }] };
    expect(previewOf(old)).toEqual(old);
  });
});
