import { Worker } from "node:worker_threads";
import { bundledScript } from "../../bundled-script.js";

/** How often the log is copied back, when it is started again from its beginning, and when its file is emptied. */
export interface CheckpointSettings {
  intervalMs: number;
  /** Frames (pages, 4 KiB by default) the log may hold before it is started again (`wal_checkpoint(RESTART)`). */
  restartFrames: number;
  /** Bytes the log's file may reach before it is emptied (`wal_checkpoint(TRUNCATE)`). */
  truncateBytes: number;
}

const DEFAULT_SETTINGS: CheckpointSettings = {
  intervalMs: 500,
  restartFrames: 16_384,
  truncateBytes: 256 * 1024 * 1024,
};

/**
 * Checkpoints the WAL of the server's SQLite database in a worker thread (`sqlite-checkpoint-thread.mjs`). The
 * store's own connection runs with `wal_autocheckpoint = 0` (sqlite dialect), so no commit on the event loop ever
 * does the copy. If the thread fails, `onFailure` is called, to hand checkpointing back to SQLite.
 */
export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private closing = false;

  constructor(filename: string, onFailure: (reason: string) => void, settings: CheckpointSettings = DEFAULT_SETTINGS) {
    const script = bundledScript(
      import.meta.url,
      "sqlite-checkpoint-thread.mjs",
      "store/knex/sqlite-checkpoint-thread.js",
      "the SQLite checkpoint script",
    );
    this.worker = new Worker(script, {
      workerData: { filename, ...settings },
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
