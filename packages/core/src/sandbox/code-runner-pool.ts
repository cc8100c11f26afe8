import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { bundledScript } from "../bundled-script.js";
import { oneATurn } from "../one-a-turn.js";
import { SluiceError } from "../errors.js";
import { dataSetFromRows, type DataSet, type Row } from "../engine/dataset.js";
import type { LogLevel } from "../model/run.js";
import { isolatedVmEntry, runnerExecArgv } from "./runner-flags.js";
import {
  BATCHES_IN_FLIGHT,
  DEFAULT_MEMORY_MB,
  LOG_LEVEL_SET,
  MAX_BATCH_BYTES,
  MAX_LOG_LINES,
  MAX_LOG_LINE_SENT,
  ROWS_PER_BATCH,
  type CodeJob,
  type FromRunner,
  type ToRunner,
} from "./runner-protocol.js";

/** How long a runner may take beyond the node timeout before the parent kills it (the isolate stops itself first). */
const KILL_GRACE_MS = 2_000;
/** A runner that does not say `ready` within this time is killed and the job fails. */
const START_TIMEOUT_MS = 15_000;

export interface CodeRunOptions {
  readonly signal: AbortSignal;
  readonly log: (level: LogLevel, message: string) => void;
}

export interface CodeRunnerPoolOptions {
  /** Runners kept started and idle, ready for the next job. */
  readonly warm: number;
  /** Runners at most (busy + idle); further jobs wait for one. */
  readonly max: number;
}

class Runner {
  readonly exited: Promise<void>;
  private readonly ready: Promise<void>;
  private listener: ((m: FromRunner) => void) | null = null;
  private onExit: ((reason: string) => void) | null = null;
  dead = false;

  constructor(readonly child: ChildProcess) {
    let markReady: () => void = () => undefined;
    let failStart: (e: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    this.ready.catch(() => undefined);
    const startTimer = setTimeout(() => {
      failStart(new SluiceError("internal", "the code runner did not start"));
      this.kill();
    }, START_TIMEOUT_MS);
    child.on("message", (m: FromRunner) => {
      if (m.t === "ready") {
        clearTimeout(startTimer);
        markReady();
      } else this.listener?.(m);
    });
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        clearTimeout(startTimer);
        this.dead = true;
        const reason = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        failStart(new SluiceError("internal", `the code runner ${reason} while starting`));
        this.onExit?.(reason);
        resolve();
      });
    });
    child.on("error", () => this.kill());
    this.holdProcess(false);
  }

  /** An idle runner never keeps the server process alive; a busy one does, until its job settles. */
  holdProcess(hold: boolean): void {
    const channel = this.child.channel as { ref?: () => void; unref?: () => void } | null | undefined;
    if (hold) {
      this.child.ref();
      channel?.ref?.();
    } else {
      this.child.unref();
      channel?.unref?.();
    }
  }

  whenReady(): Promise<void> {
    return this.ready;
  }

  send(message: ToRunner): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.dead || !this.child.connected) {
        reject(new SluiceError("internal", "the code runner is gone"));
        return;
      }
      this.child.send(message, (e) => (e ? reject(new SluiceError("internal", "the code runner is gone")) : resolve()));
    });
  }

  attach(listener: (m: FromRunner) => void, onExit: (reason: string) => void): void {
    this.listener = listener;
    this.onExit = onExit;
    this.holdProcess(true);
  }

  detach(): void {
    this.listener = null;
    this.onExit = null;
    if (!this.dead) this.holdProcess(false);
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    // held until it has exited, so whoever awaits `exited` is not left with an empty event loop
    this.child.ref();
    this.child.kill("SIGKILL");
  }
}

/**
 * Pre-started `node` processes that run `code` nodes (docs/nodes.md): each starts with an empty environment, Node's
 * permission model with nothing granted beyond reading its own script and sandbox engine, and no descriptors but
 * /dev/null and the IPC channel. Inside, user code runs in a fresh sandbox per job with no Node API. A runner that
 * crashes, hangs, overruns its time or is cancelled is killed and replaced; the server carries on.
 */
export class CodeRunnerPool {
  private readonly idle: Runner[] = [];
  /** Jobs waiting for a runner: given one as another job releases it, or failed when no runner can be started. */
  private readonly waiting: { take(runner: Runner): void; fail(e: unknown): void }[] = [];
  private busy = 0;
  private closed = false;
  private nextJobId = 1;

  constructor(private readonly options: CodeRunnerPoolOptions) {}

  /** Starts the warm runners (called at server start so the first `code` node does not pay for it). */
  warmUp(): void {
    while (!this.closed && this.idle.length + this.busy < this.options.warm) this.idle.push(this.spawn());
  }

  /** Runs one job; the inputs cross to the runner as JSON batches and the output comes back the same way. */
  async run(
    job: Omit<CodeJob, "rowsPerBatch" | "maxBatchBytes">,
    inputs: readonly DataSet[],
    options: CodeRunOptions,
  ): Promise<DataSet> {
    if (options.signal.aborted) throw new SluiceError("unprocessable", "code was cancelled");
    const runner = await this.acquire(options.signal);
    // cancelled while its runner was starting (turns, behind other starts): the runner goes to the next job
    if (options.signal.aborted) {
      this.release(runner, true);
      throw new SluiceError("unprocessable", "code was cancelled");
    }
    let healthy = false;
    try {
      const result = await this.execute(
        runner,
        { ...job, rowsPerBatch: ROWS_PER_BATCH, maxBatchBytes: MAX_BATCH_BYTES },
        inputs,
        options,
      );
      healthy = true;
      return result;
    } finally {
      this.release(runner, healthy);
    }
  }

  /** Kills every idle runner; jobs waiting for one, and later jobs, fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.waiting.splice(0))
      waiting.fail(new SluiceError("internal", "the code runner pool is closed"));
    const all = this.idle.splice(0);
    for (const r of all) r.kill();
    await Promise.all(all.map((r) => r.exited));
  }

  private spawn(): Runner {
    const script = bundledScript(
      import.meta.url,
      "code-runner.mjs",
      "sandbox/code-runner.js",
      "the code runner script",
    );
    // the runner prepares its first isolate for the defaults while it waits for a job
    const child = fork(
      script,
      [isolatedVmEntry(), String(DEFAULT_MEMORY_MB), String(MAX_LOG_LINES), String(MAX_LOG_LINE_SENT)],
      {
        execArgv: runnerExecArgv(script),
        env: {},
        cwd: path.dirname(script),
        stdio: ["ignore", "ignore", "ignore", "ipc"],
        serialization: "advanced",
      },
    );
    return new Runner(child);
  }

  private acquire(signal: AbortSignal): Promise<Runner> {
    if (this.closed) return Promise.reject(new SluiceError("internal", "the code runner pool is closed"));
    let idle = this.idle.pop();
    while (idle?.dead) idle = this.idle.pop();
    if (idle) {
      this.busy++;
      return Promise.resolve(idle);
    }
    if (this.busy < this.options.max) {
      this.busy++;
      // one runner started a turn (oneATurn): a wave of `code` nodes must not hold the server while all start
      return oneATurn(() => {
        if (this.closed) throw new SluiceError("internal", "the code runner pool is closed");
        return this.spawn();
      }).catch((e: unknown) => {
        // no runner can be started now: the jobs waiting would fail so too (as in `release`)
        this.busy--;
        for (const waiting of this.waiting.splice(0)) waiting.fail(e);
        throw e;
      });
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        take: (runner: Runner) => {
          signal.removeEventListener("abort", onAbort);
          resolve(runner);
        },
        fail: (e: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(new SluiceError("unprocessable", "code was cancelled"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /**
   * Gives the runner (or, when it cannot take another job, a new one) to the next waiting job, or keeps it idle. When
   * no runner can be started, the waiting jobs fail instead and the place is freed: the pool never stays full of
   * runners that do not exist.
   */
  private release(runner: Runner, healthy: boolean): void {
    runner.detach();
    if (!healthy) runner.kill();
    let next: Runner | null = healthy && !runner.dead ? runner : null;
    if (!next && !this.closed) {
      try {
        next = this.spawn();
      } catch (e) {
        // no runner can be started now (the installation changed under the server): every waiting job would fail so
        for (const waiting of this.waiting.splice(0)) waiting.fail(e);
      }
    }
    const waiter = this.waiting.shift();
    if (next && waiter) {
      waiter.take(next);
      return;
    }
    this.busy--;
    if (waiter) waiter.fail(new SluiceError("internal", "the code runner pool is closed"));
    if (next && !this.closed) this.idle.push(next);
    else next?.kill();
  }

  private async execute(
    runner: Runner,
    job: CodeJob,
    inputs: readonly DataSet[],
    options: CodeRunOptions,
  ): Promise<DataSet> {
    const id = this.nextJobId++;
    const rows: Row[] = [];
    let outputChars = 0;
    let acked = 0;
    let onAck: () => void = () => undefined;
    let stop: (error: SluiceError) => void = () => undefined;
    const done = new Promise<string[] | null>((resolve, reject) => {
      stop = (error) => {
        runner.kill();
        reject(error);
      };
      runner.attach(
        // everything a runner sends is checked: the process runs untrusted code, so its messages are untrusted too
        (m) => {
          try {
            if (m.t === "ready" || m.id !== id) return;
            if (m.t === "ack") {
              acked++;
              onAck();
            } else if (m.t === "log") {
              if (LOG_LEVEL_SET.has(m.level) && typeof m.message === "string")
                options.log(m.level, m.message.slice(0, MAX_LOG_LINE_SENT + 1));
            } else if (m.t === "out") {
              // counted before it is parsed: the server's memory holds every run's outputs
              outputChars += typeof m.json === "string" ? m.json.length : 0;
              if (outputChars > job.maxOutputChars) {
                stop(
                  new SluiceError(
                    "unprocessable",
                    `code returned more than max_output_mb (${job.maxOutputChars / 1e6} MB) of data`,
                  ),
                );
                return;
              }
              const batch = parseBatch(m.json, job.maxBatchBytes);
              if (rows.length + batch.length > job.maxOutputRows) {
                stop(new SluiceError("unprocessable", `code returned more than ${job.maxOutputRows} rows`));
                return;
              }
              for (const row of batch) rows.push(row);
            } else if (m.t === "done") {
              const columns: unknown = m.columns;
              const valid = columns === null || (Array.isArray(columns) && columns.every((c) => typeof c === "string"));
              if (!valid) throw new Error("columns");
              resolve(columns as string[] | null);
            } else if (m.t === "error") reject(new SluiceError("unprocessable", String(m.message)));
            else throw new Error("message");
          } catch {
            stop(new SluiceError("unprocessable", "the code runner sent malformed output and was stopped"));
          }
        },
        (reason) =>
          reject(
            new SluiceError(
              "unprocessable",
              `the code runner ${reason} (the code crashed it or ran it out of memory; memory_mb is ${job.memoryMb})`,
            ),
          ),
      );
    });
    done.catch(() => undefined);
    const onAbort = () => stop(new SluiceError("unprocessable", "code was cancelled"));
    options.signal.addEventListener("abort", onAbort, { once: true });
    const killTimer = setTimeout(
      () =>
        stop(
          new SluiceError("unprocessable", `code timed out after ${Math.round(job.timeoutMs / 1000)}s and was stopped`),
        ),
      job.timeoutMs + KILL_GRACE_MS,
    );
    try {
      await runner.whenReady();
      await runner.send({ t: "job", id, job });
      let sent = 0;
      let over = false;
      const settledEarly = done.then(
        () => void (over = true),
        () => void (over = true),
      );
      for (const [input, data] of inputs.entries()) {
        for (let i = 0; i < data.rows.length; i += ROWS_PER_BATCH) {
          while (sent - acked >= BATCHES_IN_FLIGHT && !over) {
            await Promise.race([new Promise<void>((resolve) => (onAck = resolve)), settledEarly]);
          }
          if (over) break;
          await runner.send({ t: "rows", id, input, json: JSON.stringify(data.rows.slice(i, i + ROWS_PER_BATCH)) });
          sent++;
        }
      }
      if (!over) await runner.send({ t: "run", id });
      const columns = await done;
      return dataSetFromRows(rows, columns ?? undefined);
    } catch (e) {
      // a send to a runner that just died reports "gone": its exit reason (or the cancel or timeout) says more
      const reason = await Promise.race([
        done.then(
          () => e,
          (err: unknown) => err,
        ),
        delay(1_000, undefined, { ref: false }).then(() => e),
      ]);
      throw reason;
    } finally {
      clearTimeout(killTimer);
      options.signal.removeEventListener("abort", onAbort);
    }
  }
}

const isRow = (v: unknown): v is Row => v !== null && typeof v === "object" && !Array.isArray(v);

/** One output batch: a JSON array of row objects no longer than the job allows; anything else throws. */
function parseBatch(json: unknown, maxBytes: number): Row[] {
  // a little slack over the runner's own limit for the brackets and commas
  if (typeof json !== "string" || json.length > maxBytes + 1024) throw new Error("batch");
  const batch: unknown = JSON.parse(json);
  if (!Array.isArray(batch) || !batch.every(isRow)) throw new Error("batch");
  return batch;
}

let shared: CodeRunnerPool | null = null;

/** The process-wide pool (runners are per machine, not per `Sluice` instance). */
export function sharedCodeRunnerPool(): CodeRunnerPool {
  shared ??= new CodeRunnerPool({ warm: 2, max: 8 });
  return shared;
}
