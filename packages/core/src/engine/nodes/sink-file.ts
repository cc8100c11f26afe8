import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline, Readable } from "node:stream";
import { stringify } from "csv-stringify";
import { cell, type DataSet } from "../dataset.js";
import { SluiceError } from "../../errors.js";
import { assertConfinedRealPath, openedRealPath, resolveConfinedPath, type FileAccess } from "../../file-access.js";
import { defineNodeType } from "../node-type.js";
import { z } from "zod";
import { nonEmpty, loose } from "./config-parts.js";
import { texts } from "./references.js";

const NEW_FILE_MODE = 0o640;

const csvValue = (v: unknown) =>
  v instanceof Date ? v.toISOString() : v !== null && typeof v === "object" ? JSON.stringify(v) : v;

/** The cells of each row, in column order: what csv-stringify takes, made as it asks for them. */
function* csvRecords(data: DataSet): Generator<unknown[]> {
  for (const row of data.rows) yield data.columns.map((c) => csvValue(cell(row, c)));
}

/**
 * About how many characters of text go into one write: `writeFile` writes each chunk it is given on its own, and a
 * write a row (through the thread pool, then a turn of the event loop) made 300,000 rows of JSON a file in 8 s.
 */
const CHUNK_CHARS = 64 * 1024;

/** `texts` joined into chunks of at least CHUNK_CHARS (the last one shorter). */
function* chunked(texts: Iterable<string>): Generator<string> {
  let chunk = "";
  for (const text of texts) {
    chunk += text;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

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

/** Where a temp file is written and renamed from, found from open descriptors rather than by name. */
interface PinnedDir {
  /** The directory's real path, read back from the descriptor: what the confinement checks look at. */
  readonly real: string;
  /** Path to use for names in it: `/proc/self/fd/N` (always that directory) on Linux, else `real`. */
  readonly via: string;
  close(): Promise<void>;
}

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;

/**
 * Opens the directory `dir` (real when resolved, but any component may have been swapped for a symlink since) and
 * returns where it really is. On Linux the directory stays open and every later name is looked up through
 * `/proc/self/fd/N`, so a rename in it can land nowhere else whatever is swapped meanwhile; elsewhere its real path.
 */
async function pinDir(requested: string, dir: string): Promise<PinnedDir | undefined> {
  if (process.platform !== "linux") return undefined;
  const handle = await fs.promises.open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((e: unknown) => {
    // O_NOFOLLOW | O_DIRECTORY on a symlink: the directory itself was swapped for one since it was resolved
    if (!["ELOOP", "ENOTDIR"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
    throw new SluiceError(
      "forbidden",
      `path '${requested}' leads outside the allowed file roots through a symbolic link`,
    );
  });
  try {
    const via = `/proc/self/fd/${handle.fd}`;
    const real = await fs.promises.readlink(via);
    return { real, via, close: () => handle.close() };
  } catch (e) {
    await handle.close();
    if (["ENOENT", "ENOTDIR", "EACCES"].includes((e as NodeJS.ErrnoException).code ?? "")) return undefined; // no /proc
    throw e;
  }
}

/**
 * Writes `content` to `target` (a real path inside the roots, checked when resolved) through a temp file beside it
 * and an atomic rename, re-checking where the temp file really is after opening it so that a directory swapped for
 * a symlink after the check cannot send the write (or the rename) outside the roots or onto a state file.
 */
async function writeConfined(
  requested: string,
  target: string,
  content: Readable,
  access: FileAccess,
  signal: AbortSignal,
): Promise<void> {
  const name = path.basename(target);
  const tempName = `${name}.${randomBytes(6).toString("hex")}.tmp`;
  const pinned = await pinDir(requested, path.dirname(target));
  let dir = pinned?.via ?? path.dirname(target);
  let handle: fs.promises.FileHandle | undefined;
  let created = false;
  try {
    handle = await fs.promises.open(path.join(dir, tempName), O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, NEW_FILE_MODE);
    created = true;
    let realDir: string;
    if (pinned) realDir = pinned.real;
    else {
      // no /proc to pin the directory: where the temp file really is (trusted only if it is the file we opened)
      const realTemp = await openedRealPath(requested, handle, path.join(dir, tempName));
      realDir = path.dirname(realTemp);
      dir = realDir;
    }
    const replaced = await fs.promises.lstat(path.join(dir, name)).catch(() => null);
    await assertConfinedRealPath(requested, path.join(realDir, name), access, replaced ?? undefined);
    await fs.promises.writeFile(handle, content, { signal });
    // replacing a file keeps its mode: a sink never loosens (or tightens) what the operator set
    if (replaced?.isFile()) await handle.chmod(replaced.mode & 0o777);
    await handle.sync();
    await handle.close();
    handle = undefined;
    // by real (or pinned) names only: if the directory was swapped since, this fails rather than write elsewhere
    await fs.promises.rename(path.join(dir, tempName), path.join(dir, name));
    created = false;
  } finally {
    await handle?.close().catch(() => undefined);
    if (created) await fs.promises.rm(path.join(dir, tempName), { force: true }).catch(() => undefined);
    await pinned?.close();
  }
}

/**
 * `sink_file`: writes its input as csv (csv-stringify: proper quoting), a json array or jsonl, inside the file roots.
 * Written to a temp file beside the target and renamed into place, so a failed node never leaves a half-written
 * file. New files are created 0640 (less if the umask says so); a replaced file keeps its mode. Where the temp file
 * really is gets checked again once it is open, and the rename uses that real directory (see `writeConfined`).
 * Passes its input through.
 */
export const sinkFileNode = defineNodeType({
  type: "sink_file",
  configSchema: sinkFileConfig,
  effects: true,
  references: (c) => ({ filesWritten: texts(c.path) }),
  async run(ctx, config, inputs) {
    const data = inputs[0] ?? { columns: [], rows: [] };
    const requested = await ctx.render(config.path);
    const target = await resolveConfinedPath(requested, ctx);
    const format = config.format ?? (/\.jsonl$/i.test(target) ? "jsonl" : /\.json$/i.test(target) ? "json" : "csv");
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const source =
      format === "csv"
        ? // pipeline, not pipe: an error of the stringifier, before the write below listens, must not go unhandled
          pipeline(
            Readable.from(csvRecords(data), { objectMode: true }),
            stringify({ header: config.header ?? true, columns: data.columns, delimiter: config.delimiter ?? "," }),
            () => undefined,
          )
        : Readable.from(chunked(format === "json" ? jsonArray(data) : jsonLines(data)));
    await writeConfined(requested, target, source, ctx, ctx.signal);
    return {
      output: data,
      rowCount: data.rows.length,
      summary: `wrote ${data.rows.length} rows as ${format} to ${path.basename(target)}`,
    };
  },
});
