import type { LogEntry, NodeRun } from "../model/run.js";
import type { NodeOutputRecord, RunStore } from "../store/ports.js";

/**
 * Batches node-run state, log lines and node outputs into few transactions: writes queued while one batch is in
 * flight go out together in the next. `flush()` resolves once everything queued before it is durable.
 */
export class WriteBuffer {
  private nodeRuns: NodeRun[] = [];
  private logs: LogEntry[] = [];
  private outputs: NodeOutputRecord[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private scheduled: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<RunStore, "writeBatch">,
    private readonly onError: (e: unknown) => void,
  ) {}

  nodeRun(nr: NodeRun): void {
    this.nodeRuns.push({ ...nr });
    this.schedule();
  }

  log(entry: LogEntry): void {
    this.logs.push(entry);
    this.schedule();
  }

  output(record: NodeOutputRecord): void {
    this.outputs.push(record);
    this.schedule();
  }

  /** Resolves when everything queued so far has been written. */
  flush(): Promise<void> {
    return this.scheduled ?? this.inFlight;
  }

  private schedule(): void {
    if (this.scheduled) return;
    const previous = this.inFlight;
    const next = previous.then(() => {
      this.scheduled = null;
      const batch = { nodeRuns: this.nodeRuns, logs: this.logs, outputs: this.outputs };
      this.nodeRuns = [];
      this.logs = [];
      this.outputs = [];
      return this.store.writeBatch(batch).catch(this.onError);
    });
    this.scheduled = next;
    this.inFlight = next;
  }
}
