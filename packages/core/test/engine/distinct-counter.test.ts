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
});
