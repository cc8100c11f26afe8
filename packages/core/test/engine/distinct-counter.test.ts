import { describe, expect, it } from "vitest";
import { DistinctCounter } from "../../src/engine/distinct-counter.js";

describe("DistinctCounter", () => {
  it("is exact for small columns, keeping numbers and strings apart", () => {
    const c = new DistinctCounter();
    for (const v of [1, 1, "1", 2.5, "a", "a", true, false, true]) c.add(v);
    expect(c.count).toBe(6);
  });

  it("stays exact up to 20,000 distinct values", () => {
    const c = new DistinctCounter();
    for (let i = 0; i < 40_000; i++) c.add(`v${i % 20_000}`);
    expect(c.count).toBe(20_000);
  });

  it.each([
    ["strings", (i: number) => `name ${i}`],
    ["integers", (i: number) => i],
    ["fractions", (i: number) => i * 0.5],
  ])("estimates large cardinalities of %s within 3 %%", (_, value) => {
    for (const n of [25_000, 300_000, 1_000_000]) {
      const c = new DistinctCounter();
      for (let i = 0; i < n; i++) {
        c.add(value(i));
        if (i % 3 === 0) c.add(value(i)); // repeats do not count
      }
      expect(Math.abs(c.count - n) / n).toBeLessThan(0.03);
    }
  });

  it("counts long texts without hashing all of them: 20,001 texts of 60,000 characters, at the switch too", () => {
    // each a longer prefix of one text, as `substring` makes them (they share its memory): hashing every character,
    // the switch to the estimate held the server's thread for 9 s
    const base = "x".repeat(80_000);
    const c = new DistinctCounter();
    for (let i = 0; i <= 20_000; i++) c.add(base.slice(0, 60_000 + i));
    expect(Math.abs(c.count - 20_001) / 20_001).toBeLessThan(0.03);
    // and long texts of one length that differ near their ends, exactly while few
    const d = new DistinctCounter();
    for (let i = 0; i < 3_000; i++) d.add(`${i}:${"y".repeat(20_000)}:${i % 1_000}`);
    d.add("short");
    expect(d.count).toBe(3_001);
  });
});
