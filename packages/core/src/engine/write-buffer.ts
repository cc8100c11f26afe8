import { setImmediate as nextTurn } from "node:timers/promises";
import type { LogEntry, NodeRun } from "../model/run.js";
import type {
  EventLogEntry,
  EventLogStore,
  NewRun,
  NodeOutputRecord,
  RunClaim,
  RunStore,
  RunTransition,
} from "../store/ports.js";

/** Waits before writing a batch again that failed on a busy database: about a minute in all. */
const BUSY_RETRY_DELAYS_MS = [100, 500, 1000, 2000, 5000, 10_000, 20_000, 20_000];

/** SQLite's "database is locked" (SQLITE_BUSY, SQLITE_LOCKED): another connection holds the file for now. */
const isBusy = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
};

/** Longest failure message of a batch logged whole: knex prefixes the SQL, which for a whole batch can be huge. */
const MAX_ERROR_TEXT = 1000;

/**
 * The message of a failed batch for the log: its start and the database's own words, which knex puts last. Masked
 * (`mask`, the runs' secrets) before it is cut: a cut first could leave the start or end of a secret unmasked.
 */
export function writeErrorText(e: unknown, mask: (text: string) => string): string {
  const text = mask(e instanceof Error ? e.message : String(e));
  return text.length <= MAX_ERROR_TEXT ? text : `${text.slice(0, 200)} … ${text.slice(-(MAX_ERROR_TEXT - 200))}`;
}

interface PendingInsert {
  runs: readonly NewRun[];
  settle: () => void;
  fail: (e: unknown) => void;
}

interface PendingTransition {
  transition: RunTransition;
  settle: (moved: boolean) => void;
  fail: (e: unknown) => void;
  /** Gets the number of the transition's `event`, when it was logged (the run moved). */
  logged?: (seq: number) => void;
}

interface PendingEvent {
  entry: EventLogEntry;
  written: (seq: number) => void;
}

/** A run-scoped write and the claim of the execution that made it (none: not fenced). */
interface Claimed<T> {
  value: T;
  claim: RunClaim | undefined;
}

export interface WriteBufferHooks {
  /** A batch failed (it is then written again run by run). */
  onError: (e: unknown) => void;
  /** The writes of these runs were refused: the claim they were made under no longer holds (a takeover). */
  onRefused?: (refused: { runId: string; claim: RunClaim }[]) => void;
}

/**
 * Group commit of run state. One buffer serves every run of a process: runs just queued, node-run states, log
 * lines, node outputs and run transitions queued in one turn of the event loop (or while a batch is in flight) go
 * out together in the next batch, in one transaction, so 64 triggers and runs at once cost a few transactions, not
 * hundreds. Streamed events go in the same transaction, into the event log, which numbers them (`written(seq)`).
 *
 * Writes made under a claim (`claim`: the executing owner and its epoch) are fenced: the store drops those of a run
 * whose claim no longer holds and the buffer reports the run to `onRefused`. Of two claims of one run in a batch
 * (an execution superseded in this very process), only the newer one's writes are kept.
 *
 * `flush()` resolves once everything queued before it is durable; `insertRuns()` once its runs are; `transition()`
 * once its batch committed, with whether the run moved.
 *
 * A failed batch is reported to `onError` and written again run by run, so one run's bad write costs only that
 * run its node runs, logs and outputs. Where a run's share fails too, it is written again without its outputs (the
 * large writes), and where that fails, its new runs and transitions on their own: a run's own record is what must not
 * be lost. One that fails again is rejected, so no run is reported
 * queued or finished that was not recorded so.
 */
export class WriteBuffer {
  private nodeRuns: Claimed<NodeRun>[] = [];
  private logs: Claimed<LogEntry>[] = [];
  private outputs: Claimed<NodeOutputRecord>[] = [];
  private transitions: PendingTransition[] = [];
  private inserts: PendingInsert[] = [];
  private events: PendingEvent[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private scheduled: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<RunStore, "writeBatch" | "transition" | "insert">,
    private readonly hooks: WriteBufferHooks,
    /** Where the events of a failed batch go on their own. */
    private readonly eventLog?: Pick<EventLogStore, "append">,
  ) {}

  nodeRun(nr: NodeRun, claim?: RunClaim): void {
    this.nodeRuns.push({ value: { ...nr }, claim });
    this.schedule();
  }

  log(entry: LogEntry, claim?: RunClaim): void {
    this.logs.push({ value: entry, claim });
    this.schedule();
  }

  output(record: NodeOutputRecord, claim?: RunClaim): void {
    this.outputs.push({ value: record, claim });
    this.schedule();
  }

  /** Appends a streamed event to the event log; `written` gets its sequence number once it is committed. */
  event(entry: EventLogEntry, written: (seq: number) => void): void {
    this.events.push({ entry, written });
    this.schedule();
  }

  /** Inserts runs just queued (`pending`, or claimed already: NewRun); resolves once they are durable. */
  insertRuns(runs: readonly NewRun[]): Promise<void> {
    return new Promise((settle, fail) => {
      this.inserts.push({ runs, settle, fail });
      this.schedule();
    });
  }

  /**
   * Applies `transition` after everything queued before it; resolves with whether the run moved. Its `event`, if
   * any, is logged in the same transaction when the run moves, and `logged` gets its number before this resolves.
   */
  transition(transition: RunTransition, logged?: (seq: number) => void): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.transitions.push({ transition, settle, fail, logged });
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
      events: this.events,
    };
    this.inserts = [];
    this.nodeRuns = [];
    this.logs = [];
    this.outputs = [];
    this.transitions = [];
    this.events = [];
    try {
      let failure = await this.write(queued);
      // the database busy (SQLite: a checkpoint holding the file past busy_timeout): the same batch again, later,
      // rather than writing it in pieces that would each meet the same lock and be lost (found by a helper's
      // attack: node runs left `running` in a `success` run, its logs missing)
      for (const delayMs of BUSY_RETRY_DELAYS_MS) {
        if (!failure || !isBusy(failure.error)) break;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        failure = await this.write(queued);
      }
      if (!failure) return;
      // one run's bad write (a value the database refuses) must not cost the other runs theirs
      for (const part of splitByRun(queued)) {
        if (await this.tryWrite(part)) continue;
        // previews, profiles and outputs kept for resume are the run's large writes: its states and logs without
        // them, and a line in its log saying what was not written
        if (part.outputs.length > 0 && (await this.tryWrite({ ...part, outputs: [], logs: withUnwritten(part) })))
          continue;
        // the run's own record at least: queued, or its end
        for (const { runs, settle, fail } of part.inserts) await this.store.insert(runs).then(settle, fail);
        for (const { transition: t, settle, fail, logged } of part.transitions) {
          const moved = await this.store.transition(t.id, t.from, t.to, t.fields, t.claim).catch((e: unknown) => {
            fail(e);
            return null;
          });
          if (moved === null) continue;
          // the move is recorded; its event on its own (lost with the log down: the run's state is what counts)
          if (moved && t.event && this.eventLog) {
            const [seq] = await this.eventLog.append([t.event]).catch((): number[] => []);
            if (seq !== undefined) this.report(() => logged?.(seq));
          }
          settle(moved);
        }
        // the events of what was written: on their own (a run-scoped part is one run; a fenced one is refused above)
        if (part.events.length > 0 && this.eventLog && !hasClaims(part)) {
          const seqs = await this.eventLog.append(part.events.map((e) => e.entry)).catch((): number[] => []);
          seqs.forEach((seq, i) => part.events[i]?.written(seq));
        }
      }
    } catch (e) {
      // settling twice is harmless; leaving a trigger or a run's end waiting for ever is not
      for (const i of queued.inserts) i.fail(e);
      for (const t of queued.transitions) t.fail(e);
    }
  }

  /** `write`: whether it succeeded. */
  private async tryWrite(q: Queued): Promise<boolean> {
    return (await this.write(q)) === null;
  }

  /** One transaction; on success settles its inserts and transitions (null), on failure reports the error. */
  private async write(q: Queued): Promise<{ error: unknown } | null> {
    try {
      const claims = newestClaims(q);
      const current = (runId: string, claim: RunClaim | undefined) =>
        !claim || claims.get(runId)?.epoch === claim.epoch;
      const items = <T>(list: Claimed<T>[], runOf: (v: T) => string) =>
        list.filter((i) => current(runOf(i.value), i.claim)).map((i) => i.value);
      // a superseded execution's transition (an older claim of a run this process claimed again) is not sent
      const [sent, superseded] = partition(q.transitions, (t) => current(t.transition.id, t.transition.claim));
      for (const t of superseded) t.settle(false);
      const { moved, seqs, refused } = await this.store.writeBatch({
        runs: q.inserts.flatMap((i) => i.runs),
        nodeRuns: items(q.nodeRuns, (nr) => nr.run_id),
        logs: items(q.logs, (l) => l.run_id),
        outputs: items(q.outputs, (o) => o.run_id),
        transitions: sent.map((t) => t.transition),
        events: q.events.map((e) => e.entry),
        claims,
      });
      for (const i of q.inserts) i.settle();
      // a refused run's events were dropped: the numbers go to the others, in order, then to the moves' events
      const refusedIds = new Set(refused);
      let n = 0;
      for (const e of q.events) {
        if (refusedIds.has(e.entry.event.run_id)) continue;
        const seq = seqs[n++]!;
        this.report(() => e.written(seq));
      }
      const movedIds = new Set(moved);
      for (const t of sent) {
        const seq = movedIds.has(t.transition.id) && t.transition.event ? seqs[n++] : undefined;
        if (seq !== undefined) this.report(() => t.logged?.(seq));
        t.settle(movedIds.has(t.transition.id));
      }
      if (refused.length > 0) {
        const lost = refused.map((runId) => ({ runId, claim: claims.get(runId)! }));
        this.report(() => this.hooks.onRefused?.(lost));
      }
      return null;
    } catch (error) {
      this.report(() => this.hooks.onError(error));
      return { error };
    }
  }

  private report(fn: () => void): void {
    try {
      fn();
    } catch {
      // a failing logger must not stop the writes
    }
  }
}

/** The claim each run's writes in `q` are made under: the newest (highest epoch) where there are two. */
function newestClaims(q: Queued): Map<string, RunClaim> {
  const claims = new Map<string, RunClaim>();
  const note = (runId: string, claim: RunClaim | undefined) => {
    if (!claim) return;
    const known = claims.get(runId);
    if (!known || known.epoch < claim.epoch) claims.set(runId, claim);
  };
  for (const i of q.nodeRuns) note(i.value.run_id, i.claim);
  for (const i of q.logs) note(i.value.run_id, i.claim);
  for (const i of q.outputs) note(i.value.run_id, i.claim);
  for (const t of q.transitions) note(t.transition.id, t.transition.claim);
  return claims;
}

const hasClaims = (q: Queued) => newestClaims(q).size > 0;

/** The part's log lines and, per node, a warning naming its outputs that could not be written. */
function withUnwritten(part: Queued): Claimed<LogEntry>[] {
  // a part is one run's: its outputs by node
  const byNode = new Map<string, { kinds: Set<string>; claim: RunClaim | undefined; runId: string }>();
  for (const { value, claim } of part.outputs) {
    const entry = byNode.get(value.node_id) ?? { kinds: new Set(), claim, runId: value.run_id };
    entry.kinds.add(value.kind.split(":")[0]!); // a part of a kept output (output:2) is the output
    byNode.set(value.node_id, entry);
  }
  const timestamp = new Date().toISOString();
  const warnings = [...byNode].map(([nodeId, { kinds, claim, runId }]) => ({
    value: {
      run_id: runId,
      node_id: nodeId,
      level: "warning" as const,
      message: `${[...kinds].join(", ")} not written: the database refused it (see the server log)`,
      timestamp,
    },
    claim,
  }));
  return [...part.logs, ...warnings];
}

function partition<T>(items: readonly T[], keep: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (keep(item) ? yes : no).push(item);
  return [yes, no];
}

/** What one batch takes from the queue. */
interface Queued {
  inserts: PendingInsert[];
  nodeRuns: Claimed<NodeRun>[];
  logs: Claimed<LogEntry>[];
  outputs: Claimed<NodeOutputRecord>[];
  transitions: PendingTransition[];
  events: PendingEvent[];
}

/** The queued writes of each run on their own, in their order (the runs of one trigger or backfill together). */
function splitByRun(q: Queued): Queued[] {
  const parts = new Map<string, Queued>();
  const part = (key: string) => {
    let found = parts.get(key);
    if (!found) {
      found = { inserts: [], nodeRuns: [], logs: [], outputs: [], transitions: [], events: [] };
      parts.set(key, found);
    }
    return found;
  };
  q.inserts.forEach((i, n) => part(`insert ${n}`).inserts.push(i));
  for (const nr of q.nodeRuns) part(nr.value.run_id).nodeRuns.push(nr);
  for (const l of q.logs) part(l.value.run_id).logs.push(l);
  for (const o of q.outputs) part(o.value.run_id).outputs.push(o);
  for (const t of q.transitions) part(t.transition.id).transitions.push(t);
  for (const e of q.events) part(e.entry.event.run_id).events.push(e);
  return [...parts.values()];
}
