import { SluiceError } from "../../errors.js";
import { cell, ownProperty, type Row } from "../dataset.js";
import { defineNodeType } from "../node-type.js";
import { Slices } from "../slices.js";
import { z } from "zod";
import { isNull, keyOf } from "./cell-values.js";
import { loose, maxOutputRows, nonEmpty, outputLimits } from "./config-parts.js";

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
/** A join key (keyOf): null when any of its columns is null (SQL semantics: a null key never matches). */
const joinKeyOf = (row: Row, columns: readonly string[]) =>
  columns.some((c) => isNull(cell(row, c))) ? null : keyOf(row, columns);

export const joinConfig = loose({
  how: z.enum(["inner", "left", "right", "full"]).optional(),
  on: z.union([nonEmpty("on"), z.array(nonEmpty("on")).min(1)]).optional(),
  left_on: z.union([nonEmpty("left_on"), z.array(nonEmpty("left_on")).min(1)]).optional(),
  right_on: z.union([nonEmpty("right_on"), z.array(nonEmpty("right_on")).min(1)]).optional(),
  max_output_rows: maxOutputRows,
}).refine(
  (c) => Boolean(c.on) || (Boolean(c.left_on) && Boolean(c.right_on)),
  "join needs on (or left_on and right_on)",
);

/**
 * `join`: hash join of two inputs (edge order: left, right) on one or several key columns. Key columns appear once
 * (named as on the left); other columns whose names clash are prefixed with their upstream node id (`orders.amount`).
 */
export const joinNode = defineNodeType({
  type: "join",
  configSchema: joinConfig,
  async run(ctx, config, inputs) {
    if (inputs.length !== 2) throw new SluiceError("invalid", `join needs exactly two inputs, got ${inputs.length}`);
    const [left, right] = inputs as [(typeof inputs)[0], (typeof inputs)[0]];
    const leftOn = list(config.left_on ?? config.on);
    const rightOn = list(config.right_on ?? config.on);
    if (leftOn.length !== rightOn.length)
      throw new SluiceError("invalid", "left_on and right_on must name the same number of columns");
    const how = config.how ?? "inner";
    const [leftId, rightId] = [ctx.inputIds[0] ?? "left", ctx.inputIds[1] ?? "right"];

    // Sets, not lists: rows of 60,000 columns a side took 10 s to compare by lists
    const [leftKeys, rightKeys] = [new Set(leftOn), new Set(rightOn)];
    const leftRest = left.columns.filter((c) => !leftKeys.has(c));
    const rightRest = right.columns.filter((c) => !rightKeys.has(c));
    const rightRestSet = new Set(rightRest);
    const clash = new Set(leftRest.filter((c) => rightRestSet.has(c)));
    const leftName = (c: string) => (clash.has(c) ? `${leftId}.${c}` : c);
    // a right column named as a left key column (`left_on: id`, `right_on: cid`, and the right has an `id` of its
    // own) is prefixed too: it would overwrite the key
    const rightName = (c: string) => (clash.has(c) || leftKeys.has(c) ? `${rightId}.${c}` : c);
    const columns = [...leftOn, ...leftRest.map(leftName), ...rightRest.map(rightName)];

    const build = (l: Row | null, r: Row | null): Row => {
      const out: Row = {};
      leftOn.forEach((c, i) => ownProperty(out, c, (l ? cell(l, c) : r ? cell(r, rightOn[i]!) : null) ?? null));
      for (const c of leftRest) ownProperty(out, leftName(c), (l ? cell(l, c) : null) ?? null);
      for (const c of rightRest) ownProperty(out, rightName(c), (r ? cell(r, c) : null) ?? null);
      return out;
    };

    // every pass over the rows goes in slices (engine/slices.ts): 300,000 rows joined with 300,000 held the server's
    // thread for a second and a half
    const slices = new Slices(ctx.signal);
    const index = new Map<string, number[]>();
    await slices.eachOf(right.rows, (r, i) => {
      const k = joinKeyOf(r, rightOn);
      if (k === null) return;
      const hits = index.get(k);
      if (hits) hits.push(i);
      else index.set(k, [i]);
    });
    // counted before any row is built: a key repeated on both sides multiplies rows (8,000 × 8,000 on one key made
    // 64 million, held the server's thread for 45 s and ended it out of memory)
    const leftHits: (number[] | undefined)[] = [];
    // rows an unmatched left row makes; whether each unmatched right row makes one
    const unmatched = how === "left" || how === "full" ? 1 : 0;
    const keepsRight = how === "right" || how === "full";
    let count = 0;
    await slices.eachOf(left.rows, (l) => {
      const k = joinKeyOf(l, leftOn);
      const hits = k === null ? undefined : index.get(k);
      leftHits.push(hits);
      count += hits ? hits.length : unmatched;
    });
    const fromLeft = count;
    if (keepsRight) count += right.rows.length;
    const maxRows = outputLimits(config).rows;
    if (count > maxRows) {
      throw new SluiceError(
        "invalid",
        `${how} join on ${leftOn.join(", ")} would make up to ${count} rows, more than max_output_rows (${maxRows}): ` +
          "a key repeated on both sides multiplies rows; check the keys, or raise max_output_rows",
      );
    }
    const matchedRight = new Set<number>();
    const rows: Row[] = [];
    // the rows made from left rows, a piece at a time: one left row can match up to max_output_rows right rows, so
    // pieces are of rows made, not of left rows (left row n, its match j)
    const madeBy = (n: number) => leftHits[n]?.length ?? unmatched;
    let n = 0;
    let j = 0;
    await slices.each(fromLeft, (from, to) => {
      for (let made = from; made < to; made++) {
        while (j >= madeBy(n)) {
          n++;
          j = 0;
        }
        const hits = leftHits[n];
        if (hits) {
          const i = hits[j]!;
          matchedRight.add(i);
          rows.push(build(left.rows[n]!, right.rows[i]!));
        } else rows.push(build(left.rows[n]!, null));
        j++;
      }
    });
    if (keepsRight) await slices.eachOf(right.rows, (r, i) => matchedRight.has(i) || rows.push(build(null, r)));
    return {
      output: { columns, rows },
      summary: `${how} join on ${leftOn.join(", ")}: ${left.rows.length} × ${right.rows.length} rows → ${rows.length}`,
    };
  },
});
