import { z } from "zod";

const col = z.string().min(1, "column must not be empty");
const cols = z.array(col).min(1, "columns must list at least one column");
const oneOrMany = z.union([col, cols]);

/** Every `transform` rule (docs/nodes.md), checked per rule so validation names the wrong key. */
export const TransformRuleSchema = z.discriminatedUnion(
  "type",
  [
    z.looseObject({
      type: z.literal("rename"),
      mapping: z.record(z.string(), z.string(), { error: "rename needs mapping {old: new}" }),
    }),
    z.looseObject({ type: z.literal("select"), columns: cols }),
    z.looseObject({ type: z.literal("drop"), columns: cols }),
    z.looseObject({
      type: z.literal("add_column"),
      name: col,
      expression: z.string().min(1, "expression is required"),
    }),
    z.looseObject({ type: z.literal("filter"), expression: z.string().min(1, "expression is required") }),
    z.looseObject({
      type: z.literal("cast"),
      columns: oneOrMany.optional(),
      column: col.optional(),
      to: z.enum(["int", "integer", "float", "number", "string", "text", "bool", "boolean", "date", "datetime"], {
        error: "cast to must be int, float, string, bool, date or datetime",
      }),
    }),
    z.looseObject({
      type: z.literal("fill_null"),
      columns: oneOrMany.optional(),
      column: col.optional(),
      value: z.unknown(),
    }),
    z.looseObject({
      type: z.literal("replace"),
      column: col,
      search: z.string().optional(),
      replacement: z.string().optional(),
      values: z.record(z.string(), z.unknown()).optional(),
    }),
    z.looseObject({
      type: z.literal("apply_function"),
      column: col,
      function: z.enum(["upper", "lower", "trim", "round", "abs", "floor", "ceil", "length", "string", "number"], {
        error: "function must be one of upper, lower, trim, round, abs, floor, ceil, length, string, number",
      }),
      digits: z.number().int().min(0).max(15).optional(),
      target: col.optional(),
    }),
    z.looseObject({
      type: z.literal("sort"),
      columns: oneOrMany.optional(),
      by: oneOrMany.optional(),
      descending: z.boolean().optional(),
      order: z.enum(["asc", "desc"]).optional(),
    }),
    z.looseObject({ type: z.literal("deduplicate"), columns: cols.optional() }),
    z.looseObject({
      type: z.literal("aggregate"),
      group_by: z.array(col).default([]),
      aggregations: z
        .array(
          z.object({
            column: col.optional(),
            function: z.enum(["sum", "count", "avg", "min", "max"]),
            as: col.optional(),
          }),
        )
        .min(1, "aggregate needs at least one aggregation"),
    }),
    z.looseObject({ type: z.literal("limit"), count: z.number().int().min(0) }),
  ],
  {
    error:
      "rule type must be one of rename, select, drop, add_column, filter, cast, fill_null, replace, apply_function, sort, deduplicate, aggregate, limit",
  },
);
export type TransformRule = z.infer<typeof TransformRuleSchema>;
