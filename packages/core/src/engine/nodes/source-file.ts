import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { pipeline } from "node:stream";
import { parse } from "csv-parse";
import { parse as parseCsv } from "csv-parse/sync";
import { SluiceError } from "../../errors.js";
import { columnsInSlices, dataSetFromRows, type DataSet, type Row } from "../dataset.js";
import { assertOpenedConfined, resolveConfinedPath } from "../../file-access.js";
import { defineNodeType } from "../node-type.js";
import { Slices } from "../slices.js";
import { z } from "zod";
import { nonEmpty, loose } from "./config-parts.js";
import { parseJsonInSlices, WHOLE_JSON_CHARS } from "./json-array-in-slices.js";
import { texts } from "./references.js";

type SourceFileConfig = z.infer<typeof sourceFileConfig>;
type Format = "csv" | "json" | "jsonl";

function formatOf(config: SourceFileConfig, file: string): Format {
  if (config.format) return config.format;
  const ext = path.extname(file).toLowerCase();
  if (ext === ".json") return "json";
  if (ext === ".jsonl" || ext === ".ndjson") return "jsonl";
  return "csv";
}

const { O_RDONLY } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

const asRow = (v: unknown): Row =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Row) : { value: v };

/** A CSV file up to this size is read at once and parsed in one call; a larger one is streamed, in chunks this size. */
const WHOLE_CSV_BYTES = 64 * 1024;

/**
 * The file's bytes when it holds at most `size` (its size as the open handle's stat gave it), read from its start in
 * one call; null when it holds more (it grew since). One read where `readFile` would take the size again first: each
 * call waits for a thread of libuv's pool and a turn of the event loop.
 */
async function readUpTo(file: fs.promises.FileHandle, size: number, signal: AbortSignal): Promise<Buffer | null> {
  signal.throwIfAborted();
  const buffer = Buffer.allocUnsafe(size + 1);
  const { bytesRead } = await file.read(buffer, 0, size + 1, 0);
  return bytesRead > size ? null : buffer.subarray(0, bytesRead);
}

/**
 * Reads a CSV file through csv-parse: at once when it is a small regular file (`opened`: the open handle's stat; no
 * stream to set up), else streamed. Without a header row the columns are `column_1`, `column_2`, …
 */
async function readCsv(
  file: fs.promises.FileHandle,
  config: SourceFileConfig,
  signal: AbortSignal,
  opened: fs.Stats,
): Promise<DataSet> {
  const header = config.header ?? true;
  const options = {
    delimiter: config.delimiter ?? ",",
    columns: header,
    quote: config.quote === false ? null : (config.quote ?? '"'),
    escape: config.escape ?? '"',
    cast: config.cast ?? false,
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    encoding: (config.encoding ?? "utf8") as BufferEncoding,
  };
  const rows: Row[] = [];
  let columns: string[] | undefined;
  const add = (record: Row | unknown[]) => {
    // without a header row, records are arrays: name the columns column_1, column_2, …
    const row = Array.isArray(record) ? Object.fromEntries(record.map((v, i) => [`column_${i + 1}`, v])) : record;
    columns ??= Object.keys(row);
    rows.push(row);
  };
  const whole = opened.size <= WHOLE_CSV_BYTES ? await readUpTo(file, opened.size, signal) : null;
  if (whole) {
    for (const record of parseCsv(whole, options) as (Row | unknown[])[]) add(record);
    return dataSetFromRows(rows, columns ?? []);
  }
  // large (or grown since its size was taken: then again from the start)
  const parser = parse(options);
  // pipeline (not pipe) so a read error such as ENOENT reaches the parser and ends the loop below
  pipeline(file.createReadStream({ signal, autoClose: false, start: 0 }), parser, () => undefined);
  for await (const record of parser as AsyncIterable<Row | unknown[]>) add(record);
  return dataSetFromRows(rows, columns ?? []);
}

/** Reads a JSON Lines file one line at a time. */
async function readJsonl(
  file: fs.promises.FileHandle,
  config: SourceFileConfig,
  signal: AbortSignal,
): Promise<DataSet> {
  const stream = file.createReadStream({
    signal,
    autoClose: false,
    encoding: (config.encoding ?? "utf8") as BufferEncoding,
  });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  const rows: Row[] = [];
  let lineNo = 0;
  let badLine = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === "") continue;
      try {
        rows.push(asRow(JSON.parse(line)));
      } catch {
        badLine = lineNo;
        break;
      }
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (badLine) throw new SluiceError("invalid", `line ${badLine} is not valid JSON`);
  return dataSetFromRows(rows);
}

/**
 * Reads a JSON file holding an array of rows. A large one is parsed, and its rows and columns found, in slices
 * (json-array-in-slices.ts): 35 MB in one go held the server's thread for 0.2–0.4 s.
 */
async function readJsonArray(
  file: fs.promises.FileHandle,
  config: SourceFileConfig,
  signal: AbortSignal,
): Promise<DataSet> {
  const text = await file.readFile({ signal, encoding: (config.encoding ?? "utf8") as BufferEncoding });
  const slices = text.length > WHOLE_JSON_CHARS ? new Slices(signal) : null;
  let value: unknown;
  try {
    value = slices ? await parseJsonInSlices(text, slices) : JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e; // the node's timeout or a cancel
    throw new SluiceError("invalid", `file is not valid JSON: ${e.message}`);
  }
  if (!Array.isArray(value)) throw new SluiceError("invalid", "a json source file must hold an array of rows");
  if (!slices) return dataSetFromRows(value.map(asRow));
  const rows: Row[] = [];
  await slices.eachOf(value, (v) => rows.push(asRow(v)));
  return { columns: await columnsInSlices([{ columns: [], rows }], slices), rows };
}

export const sourceFileConfig = loose({
  path: nonEmpty("path"),
  format: z.enum(["csv", "json", "jsonl"]).optional(),
  delimiter: z.string().min(1).max(4).optional(),
  header: z.boolean().optional(),
  quote: z.union([z.string().length(1), z.literal(false)]).optional(),
  escape: z.string().length(1).optional(),
  cast: z.boolean().optional(),
  encoding: z.enum(["utf8", "utf-8", "latin1", "ascii", "utf16le"]).optional(),
});

/**
 * `source_file`: reads csv, json (an array) or jsonl from a path inside the file roots (`..` and symlink escapes
 * refused). CSV and JSON Lines are streamed.
 */
export const sourceFileNode = defineNodeType({
  type: "source_file",
  configSchema: sourceFileConfig,
  references: (c) => ({ filesRead: texts(c.path) }),
  async run(ctx, config) {
    const requested = await ctx.render(config.path);
    const file = await resolveConfinedPath(requested, ctx);
    const format = formatOf(config, file);
    let output: DataSet;
    let handle: fs.promises.FileHandle | undefined;
    try {
      // no symlink was left in `file` when it was resolved, but a directory of it may have been swapped for one since:
      // what is open is checked again where it really is (inside the roots, not a state file, a regular file), before
      // it is read. Not blocking: a named pipe swapped in would hold the opening thread until someone wrote to it.
      handle = await fs.promises.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      const opened = await assertOpenedConfined(requested, handle, file, ctx);
      if (format === "csv") output = await readCsv(handle, config, ctx.signal, opened);
      else if (format === "jsonl") output = await readJsonl(handle, config, ctx.signal);
      else output = await readJsonArray(handle, config, ctx.signal);
    } catch (e) {
      if (e instanceof SluiceError) throw new SluiceError(e.code, `${config.path}: ${e.message}`);
      const err = e as NodeJS.ErrnoException;
      if (err.code === "ENOENT") throw new SluiceError("invalid", `file '${config.path}' does not exist`);
      if (err.code === "EISDIR") throw new SluiceError("invalid", `'${config.path}' is a directory, not a file`);
      throw new SluiceError("invalid", `cannot read ${format} file '${config.path}': ${err.message}`);
    } finally {
      // not awaited: a read-only descriptor has nothing to flush, and the node's rows are ready now
      handle?.close().catch(() => undefined);
    }
    return { output, summary: `read ${output.rows.length} rows from ${format} file '${config.path}'` };
  },
});
