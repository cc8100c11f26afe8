/**
 * Messages between the server and a code runner process over its IPC channel (`code-runner.mjs` mirrors these
 * shapes). Rows always cross as JSON text in batches, so no object of one side is ever handed to the other.
 */
import { LOG_LEVELS, type LogLevel } from "../model/run.js";

/** What a runner needs to run one `code` node attempt. Never carries secrets, connections or the store. */
export interface CodeJob {
  readonly code: string;
  readonly params: Readonly<Record<string, string>>;
  /** One entry per upstream input, in edge order; the first is also `rows`/`columns`. */
  readonly inputs: readonly { readonly id: string | null; readonly columns: readonly string[] }[];
  readonly timeoutMs: number;
  readonly memoryMb: number;
  /** Log lines kept from `console.*`; later ones are counted and dropped. */
  readonly maxLogLines: number;
  readonly maxOutputRows: number;
  /** Characters of JSON the output may take in all (its `out` messages); more fails the node. */
  readonly maxOutputChars: number;
  /** Output rows per `out` message at most. */
  readonly rowsPerBatch: number;
  /** Characters of JSON per `out` message at most (a larger row fails the node): bounds what the server parses. */
  readonly maxBatchBytes: number;
}

export type ToRunner =
  | { readonly t: "job"; readonly id: number; readonly job: CodeJob }
  /** A batch of the rows of input `input`, as a JSON array of row objects. */
  | { readonly t: "rows"; readonly id: number; readonly input: number; readonly json: string }
  | { readonly t: "run"; readonly id: number };

export type FromRunner =
  | { readonly t: "ready" }
  /** One input batch has been taken into the sandbox (the server sends at most `BATCHES_IN_FLIGHT` ahead). */
  | { readonly t: "ack"; readonly id: number }
  | { readonly t: "log"; readonly id: number; readonly level: LogLevel; readonly message: string }
  /** A batch of output rows as a JSON array. */
  | { readonly t: "out"; readonly id: number; readonly json: string }
  | { readonly t: "done"; readonly id: number; readonly columns: string[] | null }
  | { readonly t: "error"; readonly id: number; readonly message: string };

/** Rows per batch in both directions: big enough to amortise a message, small enough to bound memory. */
export const ROWS_PER_BATCH = 20_000;
/** JSON characters per output batch: the server parses each batch on its event loop, so it stays small. */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;
/** Input batches sent ahead of the runner's acknowledgements: keeps both sides busy, bounds the runner's memory. */
export const BATCHES_IN_FLIGHT = 2;

/** Isolate heap limit of a `code` node without `memory_mb`. */
export const DEFAULT_MEMORY_MB = 256;
/** `console.*` lines kept per attempt; a flood beyond is counted, not logged. */
export const MAX_LOG_LINES = 1_000;
/**
 * Longest `console.*` line a runner sends, cut with `…`. Far longer than what the run keeps of a line (cut there only
 * after masking): a cut here, before anything masked it, never reaches the part people see.
 */
export const MAX_LOG_LINE_SENT = 100_000;

/** The log levels a runner may use for a `console.*` line. */
export const LOG_LEVEL_SET: ReadonlySet<string> = new Set(LOG_LEVELS);
