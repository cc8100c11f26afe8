import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cronError, structuralErrors, validatePipelineDefinition } from "../../src/dag/validate-pipeline.js";
import { PipelineCreateSchema } from "../../src/model/pipeline.js";

const base = {
  name: "p",
  nodes: [],
  edges: [],
  schedule: null,
  schedule_timezone: null,
  sla_deadline: null,
  sla_timezone: null,
  params: {},
  depends_on: [],
};

describe("pipeline validation", () => {
  it("never throws, whatever structurally valid definition it gets", () => {
    const nodeArb = fc.record({
      id: fc.string({ minLength: 1, maxLength: 4 }),
      type: fc.constantFrom("source_db", "transform", "sink_db", "join", "bogus", "quality", "code"),
      config: fc.dictionary(
        fc.constantFrom("conn_id", "query", "rules", "table", "mode", "sql", "path"),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    });
    fc.assert(
      fc.property(
        fc.record({
          name: fc.string({ maxLength: 300 }),
          nodes: fc.array(nodeArb, { maxLength: 12 }),
          edges: fc.array(
            fc.record({
              from: fc.string({ minLength: 1, maxLength: 4 }),
              to: fc.string({ minLength: 1, maxLength: 4 }),
            }),
            { maxLength: 12 },
          ),
          schedule: fc.option(fc.string({ maxLength: 20 })),
          schedule_timezone: fc.option(fc.constantFrom("UTC", "Europe/Berlin", "Bad/Zone", "")),
          sla_deadline: fc.option(fc.string({ maxLength: 6 })),
          params: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })),
        }),
        (input) => {
          const def = PipelineCreateSchema.parse(input);
          const result = validatePipelineDefinition(def);
          return result.valid === (result.errors.length === 0) && Array.isArray(result.warnings);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("accepts standard 5-field cron with ranges, steps, lists and names", () => {
    for (const expr of ["* * * * *", "*/15 0-6 1,15 * 1-5", "0 9 * jan mon", "0 0 L * *", "5 4 * * 0"]) {
      expect(cronError(expr)).toBeNull();
    }
    for (const expr of [
      "",
      "* * * *",
      "60 * * * *",
      "* 24 * * *",
      "* * 32 * *",
      "* * * 13 *",
      "* * * * 8",
      "0 0 0 * * *",
    ]) {
      expect(cronError(expr)).not.toBeNull();
    }
  });

  it("sla_deadline must be HH:MM within a day", () => {
    expect(structuralErrors({ ...base, sla_deadline: "23:59" })).toEqual([]);
    expect(structuralErrors({ ...base, sla_deadline: "00:00" })).toEqual([]);
    for (const bad of ["24:00", "7:30", "07:60", "0730", "noon"]) {
      expect(structuralErrors({ ...base, sla_deadline: bad }).join()).toMatch(/sla_deadline/);
    }
  });

  it("warns about nodes that lead nowhere but not about sinks", () => {
    const result = validatePipelineDefinition({
      ...base,
      nodes: [
        { id: "s", type: "source_db", config: { conn_id: "c", query: "select 1" } },
        { id: "k", type: "sink_db", config: { conn_id: "c", table: "t" } },
        { id: "lonely", type: "transform", config: { rules: [] } },
      ],
      edges: [{ from: "s", to: "k" }],
    });
    expect(result).toEqual({ valid: true, errors: [], warnings: ["node 'lonely' has no downstream connections"] });
  });
});
