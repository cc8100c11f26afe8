import type { LogEntry, NodeRun, Run } from "../model/run.js";
import type { NodeOutputRecord, RunStore, RunTransition } from "../store/ports.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface PendingInsert {
  runs: readonly Run[];
  settle: () => void;
  fail: (e: unknown) => void;
}

interface PendingTransition {
  transition: RunTransition;
  settle: (moved: boolean) => void;
  fail: (e: unknown) => void;
}

/**
 * Group commit of run state. One buffer serves every run of a process: runs just queued, node-run states, log
 * lines, node outputs and run transitions queued in one turn of the event loop (or while a batch is in flight) go
 * out together in the next batch, in one transaction, so 64 triggers and runs at once cost a few transactions, not
 * hundreds. `flush()` resolves once everything queued before it is durable; `insertRuns()` once its runs are;
 * `transition()` once its batch committed, with whether the run moved.
 *
 * A failed batch is reported to `onError` (its node runs, logs and outputs are lost; the runs go on), and its new
 * runs and transitions are written one by one after it: a run's own record is what must not be lost. One that
 * fails again is rejected, so no run is reported queued or finished that was not recorded so.
 */
export class WriteBuffer {
  private nodeRuns: NodeRun[] = [];
  private logs: LogEntry[] = [];
  private outputs: NodeOutputRecord[] = [];
  private transitions: PendingTransition[] = [];
  private inserts: PendingInsert[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private scheduled: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<RunStore, "writeBatch" | "transition" | "insert">,
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

  /** Inserts runs just queued (status `pending`); resolves once they are durable. */
  insertRuns(runs: readonly Run[]): Promise<void> {
    return new Promise((settle, fail) => {
      this.inserts.push({ runs, settle, fail });
      this.schedule();
    });
  }

  /** Applies `transition` after everything queued before it; resolves with whether the run moved. */
  transition(transition: RunTransition): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.transitions.push({ transition, settle, fail });
      this.schedule();
    });
  }

  /** Resolves when everything queued so far has been written (or its failure reported). */
  flush(): Promise<void> {
    return this.scheduled ?? this.inFlight;
  }

  private schedule(): void {
    if (this.scheduled) return;
    // after the current turn of the event loop: what every run does in it goes out in one batch
    const next = this.inFlight.then(nextTurn).then(() => {
      this.scheduled = null;
      const transitions = this.transitions;
      const inserts = this.inserts;
      const batch = {
        runs: inserts.flatMap((i) => i.runs),
        nodeRuns: this.nodeRuns,
        logs: this.logs,
        outputs: this.outputs,
        transitions: transitions.map((t) => t.transition),
      };
      this.nodeRuns = [];
      this.logs = [];
      this.outputs = [];
      this.transitions = [];
      this.inserts = [];
      return this.store.writeBatch(batch).then(
        ({ moved }) => {
          for (const i of inserts) i.settle();
          const movedIds = new Set(moved);
          for (const t of transitions) t.settle(movedIds.has(t.transition.id));
        },
        async (e: unknown) => {
          this.onError(e);
          for (const { runs, settle, fail } of inserts) await this.store.insert(runs).then(settle, fail);
          for (const { transition: t, settle, fail } of transitions) {
            await this.store.transition(t.id, t.from, t.to, t.fields).then(settle, fail);
          }
        },
      );
    });
    this.scheduled = next;
    this.inFlight = next;
  }
}
