import { describe, expect, it } from "vitest";
import { planOf } from "../../src/engine/pipeline-plan.js";
import { NODE_TYPE_REGISTRY } from "../../src/engine/nodes/index.js";
import type { Pipeline } from "../../src/model/pipeline.js";

const pipeline = (expression: string, extraEdge = false) =>
  ({
    nodes: [
      { id: "a", type: "transform", config: { rules: [{ type: "filter", expression }] } },
      { id: "b", type: "transform", config: { rules: [] } },
      { id: "c", type: "no_such_type", config: {} },
    ],
    edges: [{ from: "a", to: "b" }, ...(extraEdge ? [{ from: "b", to: "c" }] : [])],
  }) as unknown as Pipeline;

const configOf = (p: Pipeline, id: string) => {
  const planned = planOf(p, NODE_TYPE_REGISTRY).planned.get(id);
  return planned?.ok ? planned.config : planned?.error;
};

describe("pipeline plan (parsed once per content)", () => {
  it("is shared by equal pipelines and made anew when a node's config changes", () => {
    expect(planOf(pipeline("x > 1"), NODE_TYPE_REGISTRY)).toBe(planOf(pipeline("x > 1"), NODE_TYPE_REGISTRY));
    expect(configOf(pipeline("x > 2"), "a")).toEqual({ rules: [{ type: "filter", expression: "x > 2" }] });
    expect(configOf(pipeline("x > 3"), "a")).toEqual({ rules: [{ type: "filter", expression: "x > 3" }] });
  });

  it("follows the same pipeline object when its nodes or edges are changed in place", () => {
    const p = pipeline("x > 1");
    expect(planOf(p, NODE_TYPE_REGISTRY).waves).toEqual({ ok: true, waves: [["a", "c"], ["b"]] });
    p.edges.push({ from: "b", to: "c" });
    expect(planOf(p, NODE_TYPE_REGISTRY).waves).toEqual({ ok: true, waves: [["a"], ["b"], ["c"]] });
    (p.nodes[0]!.config as { rules: unknown[] }).rules = [];
    expect(configOf(p, "a")).toEqual({ rules: [] });
  });

  it("keeps why a node cannot run, per registry", () => {
    expect(configOf(pipeline("x"), "c")).toBe("unknown node type 'no_such_type'");
    const registry = { ...NODE_TYPE_REGISTRY, no_such_type: NODE_TYPE_REGISTRY.transform };
    const planned = planOf(pipeline("x"), registry).planned.get("c");
    expect(planned?.ok ? "ok" : planned?.error).toMatch(/invalid config: config.rules/);
  });
});
