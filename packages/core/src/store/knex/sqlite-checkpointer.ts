import { Worker } from "node:worker_threads";
import { bundledScript } from "../../bundled-script.js";

/** How often the log is copied back, and the size above which it is emptied. */
const CHECKPOINT_EVERY_MS = 500;
const TRUNCATE_ABOVE_BYTES = 256 * 1024 * 1024;

/**
 * Checkpoints the WAL of the server's SQLite database in a worker thread (`sqlite-checkpoint-thread.mjs`). The
 * store's own connection runs with `wal_autocheckpoint = 0` (sqlite dialect), so no commit on the event loop ever
 * does the copy. If the thread fails, `onFailure` is called, to hand checkpointing back to SQLite.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private closing = false;

  constructor(filename: string, onFailure: (reason: string) => void) {
    const script = bundledScript(
      import.meta.url,
      "sqlite-checkpoint-thread.mjs",
      "store/knex/sqlite-checkpoint-thread.js",
      "the SQLite checkpoint script",
    );
    this.worker = new Worker(script, {
      workerData: { filename, intervalMs: CHECKPOINT_EVERY_MS, truncateBytes: TRUNCATE_ABOVE_BYTES },
    });
    this.worker.unref();
    this.worker.on("message", (m: { t: string; message?: string }) => {
      if (m.t === "error") onFailure(m.message ?? "checkpoint failed");
    });
    this.worker.on("error", (e) => onFailure(e.message));
    this.exited = new Promise((resolve) =>
      this.worker.once("exit", (code) => {
        if (!this.closing) onFailure(`the checkpoint thread exited (${code})`);
        resolve();
      }),
    );
  }

  /** A last checkpoint, then the thread ends. */
  async close(): Promise<void> {
    this.closing = true;
    this.worker.postMessage({ t: "close" });
    const timer = setTimeout(() => void this.worker.terminate(), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}
