import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import type { DataSet } from "../dataset.js";
import { resolveConfinedPath } from "../../file-access.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { nonEmpty, loose } from "./config-parts.js";
import { texts } from "./references.js";

const NEW_FILE_MODE = 0o640;

const cell = (v: unknown) =>
  v instanceof Date ? v.toISOString() : v !== null && typeof v === "object" ? JSON.stringify(v) : v;

function* jsonLines(data: DataSet): Generator<string> {
  for (const row of data.rows) yield `${JSON.stringify(row)}\n`;
}

function* jsonArray(data: DataSet): Generator<string> {
  yield "[";
  let first = true;
  for (const row of data.rows) {
    yield `${first ? "\n" : ",\n"}${JSON.stringify(row)}`;
    first = false;
  }
  yield first ? "]\n" : "\n]\n";
}

export const sinkFileConfig = loose({
  path: nonEmpty("path"),
  format: z.enum(["csv", "json", "jsonl"]).optional(),
  delimiter: z.string().length(1, "delimiter must be one character").optional(),
  header: z.boolean().optional(),
});

/**
 * `sink_file`: writes its input as csv (csv-stringify: proper quoting), a json array or jsonl, inside the file roots.
 * Written to a temp file beside the target and renamed into place, so a failed node never leaves a half-written
 * file. New files are created 0640 (less if the umask says so); a replaced file keeps its mode. Passes its input
 * through.
 */
export const sinkFileNode = defineNodeType({
  type: "sink_file",
  configSchema: sinkFileConfig,
  effects: true,
  references: (c) => ({ filesWritten: texts(c.path) }),
  async run(ctx, config, inputs) {
    const data = inputs[0] ?? { columns: [], rows: [] };
    const target = await resolveConfinedPath(await ctx.render(config.path), ctx);
    const format = config.format ?? (/\.jsonl$/i.test(target) ? "jsonl" : /\.json$/i.test(target) ? "json" : "csv");
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      const source =
        format === "csv"
          ? Readable.from(
              data.rows.map((r) => data.columns.map((c) => cell(r[c]))),
              { objectMode: true },
            ).pipe(
              stringify({ header: config.header ?? true, columns: data.columns, delimiter: config.delimiter ?? "," }),
            )
          : Readable.from(format === "json" ? jsonArray(data) : jsonLines(data));
      await pipeline(source, fs.createWriteStream(temp, { flags: "wx", mode: NEW_FILE_MODE }), { signal: ctx.signal });
      // replacing a file keeps its mode: a sink never loosens (or tightens) what the operator set
      const existing = await fs.promises.stat(target).catch(() => null);
      if (existing?.isFile()) await fs.promises.chmod(temp, existing.mode & 0o777);
      await fs.promises.rename(temp, target);
    } catch (e) {
      await fs.promises.rm(temp, { force: true });
      throw e;
    }
    ctx.log("info", `wrote ${data.rows.length} rows as ${format} to ${path.basename(target)}`);
    return { output: data, rowCount: data.rows.length };
  },
});
