import { Worker } from "node:worker_threads";
import { SluiceError } from "../../errors.js";
import { dataSetFromRows, EMPTY_DATASET, type DataSet, type Row } from "../dataset.js";
import { defineNodeType, type NodeContext } from "../node-type.js";
import type { LogLevel } from "../../model/run.js";
import { CODE_WORKER_SOURCE } from "./code-worker-source.js";
import { codeConfig } from "./config-schemas.js";

const DEFAULT_MEMORY_MB = 256;

type WorkerMessage =
  | { kind: "log"; level: LogLevel; message: string }
  | { kind: "result"; value: unknown }
  | { kind: "error"; message: string };

const isRow = (v: unknown): v is Row => v !== null && typeof v === "object" && !Array.isArray(v);

/** The user's return value as a DataSet: an array of row objects, or `{ columns?, rows }`. */
function toDataSet(value: unknown): DataSet {
  const shape = "code must return an array of row objects or { columns, rows }";
  if (Array.isArray(value)) {
    if (!value.every(isRow)) throw new SluiceError("unprocessable", `${shape}; got an array with a non-object item`);
    return dataSetFromRows(value);
  }
  if (isRow(value) && Array.isArray(value.rows)) {
    const rows = value.rows as unknown[];
    if (!rows.every(isRow)) throw new SluiceError("unprocessable", `${shape}; rows holds a non-object item`);
    const columns = Array.isArray(value.columns) && value.columns.every((c) => typeof c === "string") ? (value.columns as string[]) : undefined;
    return dataSetFromRows(rows, columns);
  }
  throw new SluiceError("unprocessable", `${shape}; got ${value === null ? "null" : typeof value}`);
}

/** Runs the user's code in a worker thread; the worker is terminated on timeout, cancellation or completion. */
function runInWorker(ctx: NodeContext, code: string, memoryMb: number, inputs: DataSet[]): Promise<unknown> {
  const first = inputs[0] ?? EMPTY_DATASET;
  return new Promise((resolve, reject) => {
    const worker = new Worker(CODE_WORKER_SOURCE, {
      eval: true,
      workerData: {
        code,
        rows: first.rows,
        columns: first.columns,
        inputs: inputs.map((d, i) => ({ id: ctx.inputIds[i] ?? null, columns: d.columns, rows: d.rows })),
        params: { ...ctx.params },
      },
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(32, Math.max(4, memoryMb / 8)) },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (error: SluiceError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(
      () => finish(new SluiceError("unprocessable", `code timed out after ${Math.round(ctx.timeoutMs / 1000)}s and was stopped`)),
      ctx.timeoutMs,
    );
    const onAbort = () => finish(new SluiceError("unprocessable", "code was cancelled"));
    if (ctx.signal.aborted) onAbort();
    ctx.signal.addEventListener("abort", onAbort);
    worker.on("message", (m: WorkerMessage) => {
      if (m.kind === "log") ctx.log(m.level, m.message);
      else if (m.kind === "result") finish(undefined, m.value);
      else finish(new SluiceError("unprocessable", m.message));
    });
    worker.on("error", (e: Error & { code?: string }) => {
      const message =
        e.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? `code ran out of memory (limit ${memoryMb} MB, set memory_mb)`
          : `code failed: ${e.message}`;
      finish(new SluiceError("unprocessable", message));
    });
    worker.on("exit", (exitCode) => finish(new SluiceError("unprocessable", `code worker exited (code ${exitCode}) without a result`)));
  });
}

/**
 * `code`: user JavaScript, the body of an async function, run in a worker thread with the node timeout and a
 * memory limit (`memory_mb`, default 256). It receives `rows`, `columns`, `inputs`, `params` and returns rows or
 * `{ columns, rows }`; `console.*` lines become run logs.
 */
export const codeNode = defineNodeType({
  type: "code",
  configSchema: codeConfig,
  async run(ctx, config, inputs) {
    const value = await runInWorker(ctx, config.code, config.memory_mb ?? DEFAULT_MEMORY_MB, inputs);
    const output = toDataSet(value);
    ctx.log("info", `code returned ${output.rows.length} rows`);
    return { output };
  },
});
