import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { descendants, buildAdjacency, topologicalWaves } from "../../src/dag/graph.js";

/** Random DAGs: edges only go from a lower to a higher index, so they are acyclic by construction. */
const dagArb = fc.integer({ min: 1, max: 40 }).chain((n) =>
  fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: n * 3 }).map((pairs) => ({
    nodeIds: Array.from({ length: n }, (_, i) => `n${i}`),
    edges: pairs.filter(([a, b]) => a < b).map(([a, b]) => ({ from: `n${a}`, to: `n${b}` })),
  })),
);

describe("topological waves", () => {
  it("every edge goes from an earlier wave to a later one, and every node is placed once", () => {
    fc.assert(
      fc.property(dagArb, (shape) => {
        const result = topologicalWaves(shape);
        if (!result.ok) return false;
        const waveOf = new Map<string, number>();
        result.waves.forEach((wave, i) => wave.forEach((id) => waveOf.set(id, i)));
        expect(waveOf.size).toBe(shape.nodeIds.length);
        expect(result.waves.flat()).toHaveLength(shape.nodeIds.length);
        return shape.edges.every((e) => (waveOf.get(e.from) ?? -1) < (waveOf.get(e.to) ?? -1));
      }),
    );
  });

  it("a node sits in the earliest wave its inputs allow", () => {
    const result = topologicalWaves({
      nodeIds: ["a", "b", "c", "d"],
      edges: [
        { from: "a", to: "c" },
        { from: "b", to: "c" },
        { from: "c", to: "d" },
      ],
    });
    expect(result).toEqual({ ok: true, waves: [["a", "b"], ["c"], ["d"]] });
  });

  it("reports the nodes on a cycle", () => {
    const result = topologicalWaves({
      nodeIds: ["a", "b", "c", "x"],
      edges: [
        { from: "x", to: "a" },
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "c", to: "a" },
      ],
    });
    expect(result).toEqual({ ok: false, cycle: ["a", "b", "c"] });
  });

  it("duplicate edges do not confuse the ordering", () => {
    const result = topologicalWaves({
      nodeIds: ["a", "b"],
      edges: [
        { from: "a", to: "b" },
        { from: "a", to: "b" },
      ],
    });
    expect(result).toEqual({ ok: true, waves: [["a"], ["b"]] });
  });

  it("descendants are every node reachable downstream", () => {
    const adj = buildAdjacency({
      nodeIds: ["a", "b", "c", "d"],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "d", to: "c" },
      ],
    });
    expect(descendants(adj, "a")).toEqual(new Set(["b", "c"]));
    expect(descendants(adj, "c")).toEqual(new Set());
  });
});
