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
 * A failed batch is reported to `onError` and written again run by run, so one run's bad write costs only that
 * run its node runs, logs and outputs. Where a run's share fails too, its new runs and transitions are written on
 * their own: a run's own record is what must not be lost. One that fails again is rejected, so no run is reported
 * queued or finished that was not recorded so.
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
    const next = this.inFlight.then(nextTurn).then(() => this.writeQueued());
    this.scheduled = next;
    this.inFlight = next;
  }

  /** Writes what is queued; never rejects, and settles every insert and transition taken. */
  private async writeQueued(): Promise<void> {
    this.scheduled = null;
    const queued: Queued = {
      inserts: this.inserts,
      nodeRuns: this.nodeRuns,
      logs: this.logs,
      outputs: this.outputs,
      transitions: this.transitions,
    };
    this.inserts = [];
    this.nodeRuns = [];
    this.logs = [];
    this.outputs = [];
    this.transitions = [];
    try {
      if (await this.tryWrite(queued)) return;
      // one run's bad write (a value the database refuses) must not cost the other runs theirs
      for (const part of splitByRun(queued)) {
        if (await this.tryWrite(part)) continue;
        // the run's own record at least: queued, or its end
        for (const { runs, settle, fail } of part.inserts) await this.store.insert(runs).then(settle, fail);
        for (const { transition: t, settle, fail } of part.transitions) {
          await this.store.transition(t.id, t.from, t.to, t.fields).then(settle, fail);
        }
      }
    } catch (e) {
      // settling twice is harmless; leaving a trigger or a run's end waiting for ever is not
      for (const i of queued.inserts) i.fail(e);
      for (const t of queued.transitions) t.fail(e);
    }
  }

  /** One transaction; on success settles its inserts and transitions, on failure reports the error. */
  private async tryWrite(q: Queued): Promise<boolean> {
    try {
      const { moved } = await this.store.writeBatch({
        runs: q.inserts.flatMap((i) => i.runs),
        nodeRuns: q.nodeRuns,
        logs: q.logs,
        outputs: q.outputs,
        transitions: q.transitions.map((t) => t.transition),
      });
      for (const i of q.inserts) i.settle();
      const movedIds = new Set(moved);
      for (const t of q.transitions) t.settle(movedIds.has(t.transition.id));
      return true;
    } catch (e) {
      try {
        this.onError(e);
      } catch {
        // a failing logger must not stop the writes
      }
      return false;
    }
  }
}

/** What one batch takes from the queue. */
interface Queued {
  inserts: PendingInsert[];
  nodeRuns: NodeRun[];
  logs: LogEntry[];
  outputs: NodeOutputRecord[];
  transitions: PendingTransition[];
}

/** The queued writes of each run on their own, in their order (the runs of one trigger or backfill together). */
function splitByRun(q: Queued): Queued[] {
  const parts = new Map<string, Queued>();
  const part = (key: string) => {
    let found = parts.get(key);
    if (!found) {
      found = { inserts: [], nodeRuns: [], logs: [], outputs: [], transitions: [] };
      parts.set(key, found);
    }
    return found;
  };
  q.inserts.forEach((i, n) => part(`insert ${n}`).inserts.push(i));
  for (const nr of q.nodeRuns) part(nr.run_id).nodeRuns.push(nr);
  for (const l of q.logs) part(l.run_id).logs.push(l);
  for (const o of q.outputs) part(o.run_id).outputs.push(o);
  for (const t of q.transitions) part(t.transition.id).transitions.push(t);
  return [...parts.values()];
}
