import { randomUUID } from "node:crypto";
import os from "node:os";
import { nowIso } from "../clock.js";
import { digestOf } from "../content-digest.js";
import type { Pipeline } from "../model/pipeline.js";
import type { LogLevel, Run } from "../model/run.js";
import {
  CLAIMED_AT_INSERT_EPOCH,
  type ClaimedRun,
  type EventLogStore,
  type PipelineStore,
  type RunStore,
} from "../store/ports.js";
import type { NodeTypeRegistry } from "./node-type.js";
import { NODE_TYPE_REGISTRY } from "./nodes/index.js";
import { executionSettings } from "./execution-settings.js";
import { INTERRUPTED, RunExecution, type RunExecutionDeps } from "./run-execution.js";
import { WriteBuffer, writeErrorText } from "./write-buffer.js";

/** Defaults of `heartbeatMs` / `staleMs` (also of `createSluice`'s options). */
export const DEFAULT_HEARTBEAT_MS = 5000;
export const DEFAULT_STALE_MS = 20_000;
/** A run executing here: under which claim, its execution, and the pipeline it runs. */
interface Active {
  epoch: number;
  execution: RunExecution;
  done: Promise<unknown>;
  pipeline?: Pipeline;
}

export interface ExecutorOptions extends Omit<RunExecutionDeps, "registry" | "store" | "suppressEffects" | "writes"> {
  store: RunStore;
  pipelines: PipelineStore;
  /** Node types this executor runs; default the built-in registry. */
  registry?: NodeTypeRegistry;
  maxConcurrentRuns: number;
  /** Fallback poll for runs queued by other instances (ms). */
  pollMs?: number;
  /** How often the executor stamps its runs' heartbeat and looks for runs of dead owners (ms, default 5 s). */
  heartbeatMs?: number;
  /** A `running` run whose owner has not sent a heartbeat for this long is treated as interrupted (default 20 s). */
  staleMs?: number;
  /** Stands for the host name in the owner id; default `os.hostname()`. */
  instanceId?: string;
  /** The shared event log (events of a batch that failed are appended on their own). */
  eventLog?: Pick<EventLogStore, "append">;
}

/**
 * Claims pending runs from the store (up to `maxConcurrentRuns`) and executes them. `wake()` claims at once, so a
 * trigger starts its run without waiting for a poll; the slow poll only picks up other instances' runs.
 */
export class Executor {
  /** host:pid:random — lets a restarted process recognise runs its dead predecessor left `running`. */
  readonly owner: string;
  /** The owner id's host part: the host name, or the configured instance id. */
  private readonly host: string;
  private readonly active = new Map<string, Active>();
  private readonly deps: RunExecutionDeps;
  /** The group commit of every run's state in this process; triggers queue their new runs through it too. */
  readonly writes: WriteBuffer;
  private running = false;
  /** Slots taken for runs being queued already claimed (`takeSlots`), not committed yet. */
  private reserved = 0;
  /** Pending runs may be waiting for a slot here: triggers queue theirs `pending` behind them (`takeSlots`). */
  private backlog = true;
  /** Runs queued already claimed, committed, to start at the end of this turn of the event loop. */
  private readonly starting = new Map<string, { immediate: NodeJS.Immediate; run: ClaimedRun }>();
  private claiming = false;
  private again = false;
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly options: ExecutorOptions) {
    this.host = options.instanceId ?? os.hostname();
    this.owner = `${this.host}:${process.pid}:${randomUUID().slice(0, 8)}`;
    // one group commit for the state of every run this executor runs
    this.writes = new WriteBuffer(
      options.store,
      {
        onError: (e) =>
          options.logger.error(
            `executor: writing run state failed: ${writeErrorText(e, (text) => this.scrubAll(text))}`,
          ),
        onRefused: (refused) => {
          for (const { runId, claim } of refused) this.lost(runId, claim.epoch);
        },
      },
      options.eventLog,
    );
    this.deps = { ...options, registry: options.registry ?? NODE_TYPE_REGISTRY, writes: this.writes };
  }

  get activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  /** The pipeline (as it was when the run started) of a run executing here. */
  pipelineOf(runId: string): Pipeline | undefined {
    return this.active.get(runId)?.pipeline;
  }

  /** Marks runs of dead owners `interrupted`, then starts claiming. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.recover();
    const every = (ms: number, fn: () => Promise<unknown>) => {
      const t = setInterval(
        () => void fn().catch((e: unknown) => this.options.logger.error(`executor: ${(e as Error).message}`)),
        ms,
      );
      t.unref();
      this.timers.push(t);
    };
    every(this.options.pollMs ?? 1000, async () => {
      this.wake();
      await this.noticeRemoteCancels();
    });
    every(this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, async () => {
      const ids = this.activeRunIds;
      const stamped = new Set(await this.options.store.heartbeat(this.owner, ids, this.now()));
      // a run not stamped is no longer ours: another instance took it over while this process was stalled
      for (const id of ids) if (!stamped.has(id)) this.lost(id);
      await this.recover();
    });
    this.wake();
  }

  /** Stops claiming, interrupts executing runs (they end `failed` / `interrupted`, resumable) and waits for them. */
  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    // runs queued already claimed that have not started: handed back, for whichever instance claims next
    const notStarted = [...this.starting.values()].map(({ immediate, run }) => {
      clearImmediate(immediate);
      return this.handBack(run);
    });
    this.starting.clear();
    for (const { execution } of this.active.values()) execution.interrupt();
    await Promise.allSettled([...notStarted, ...[...this.active.values()].map((a) => a.done)]);
  }

  /** Claims pending runs now. */
  wake(): void {
    if (!this.running) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    // claim at the end of this turn of the event loop: runs finishing and triggers arriving in it share one claim
    this.claiming = true;
    setImmediate(() => void this.claimLoop());
  }

  /**
   * A run of this process another instance has taken over (it found this process's heartbeat stale): the execution
   * is stopped, and whatever it still writes is refused by the store. `refusedEpoch`: the store refused writes made
   * under that claim (certain; a newer execution of the run here is left alone); otherwise the heartbeat did not find
   * the run, which a run just ending here does not need explaining.
   */
  private lost(runId: string, refusedEpoch?: number): void {
    const entry = this.active.get(runId);
    const refused = refusedEpoch !== undefined;
    if (!refused && (!entry || entry.execution.finishing)) return;
    this.options.logger.warn(
      `run ${runId}: taken over by another instance (this process's heartbeat went stale); ` +
        `${refused ? "its late writes were refused" : "its heartbeat found it no longer ours"} and it is stopped here`,
      { run_id: runId, owner: this.owner },
    );
    if (!entry || (refused && entry.epoch !== refusedEpoch)) return;
    entry.execution.interrupt();
  }

  /**
   * When this process's execution of `runId` ends, if it is ending now: its end is decided (a failed run writing the
   * outputs it keeps for resume, in slices; its end being committed). Null otherwise.
   */
  ending(runId: string): Promise<unknown> | null {
    const entry = this.active.get(runId);
    return entry?.execution.finishing ? entry.done : null;
  }

  /** A running run of this process: executing nodes finish, no new node starts. */
  cancel(runId: string): void {
    // queued already claimed and not started: it never starts (the cancel moved it)
    const starting = this.starting.get(runId);
    if (starting) {
      clearImmediate(starting.immediate);
      this.starting.delete(runId);
      this.wake();
    }
    this.active.get(runId)?.execution.cancel();
  }

  /** Execution slots free now: neither executing nor taken for a run being queued. */
  private freeSlots(): number {
    return this.options.maxConcurrentRuns - this.active.size - this.reserved - this.starting.size;
  }

  /**
   * Takes up to `wanted` free slots for runs about to be queued already claimed by this executor (NewRun `owner`):
   * a trigger's run starts without a claim statement, right after the trigger is answered. Each slot taken is given
   * back by `startClaimed` or `abandonClaimed`.
   */
  takeSlots(wanted: number): number {
    // runs queued before go first, and a claim under way counted the free slots: none is taken meanwhile
    if (!this.running || this.claiming || this.backlog) return 0;
    const taken = Math.max(0, Math.min(wanted, this.freeSlots()));
    this.reserved += taken;
    return taken;
  }

  /**
   * Gives back the slots of runs whose queueing failed. Their insert may have committed all the same (an answer
   * lost, a batch written in parts): they are handed back, which does nothing to a run that does not exist.
   */
  abandonClaimed(runs: readonly Run[]): void {
    this.reserved -= runs.length;
    for (const run of runs) void this.handBack(this.claimedHere(run));
    this.wake();
  }

  /** Runs were queued `pending` here (no free slot): the next trigger waits behind them until a claim finds none. */
  queuedPending(): void {
    this.backlog = true;
  }

  /**
   * Starts a run queued already claimed by this executor (its slot was taken with `takeSlots`), at the end of this
   * turn of the event loop: the trigger is answered before the run's first nodes take the loop.
   */
  startClaimed(run: Run, pipeline: Pipeline): void {
    this.reserved--;
    const claimed = this.claimedHere(run);
    // stopped while it was being queued: handed back at once
    if (!this.running) return void this.handBack(claimed);
    const immediate = setImmediate(() => {
      this.starting.delete(run.id);
      this.launch(claimed, pipeline);
    });
    this.starting.set(run.id, { immediate, run: claimed });
  }

  /** A run as queued already claimed by this executor. */
  private claimedHere(run: Run): ClaimedRun {
    return { ...run, owner: this.owner, epoch: CLAIMED_AT_INSERT_EPOCH, attempted: false };
  }

  /** A run claimed here that will not execute here: `pending` again, unowned. Never rejects. */
  private handBack(run: ClaimedRun): Promise<unknown> {
    return this.options.store
      .transition(run.id, ["running"], "pending", { owner: null, started_at: null }, run)
      .catch((e: unknown) => this.options.logger.error(`run ${run.id}: handing back failed: ${(e as Error).message}`));
  }

  private async claimLoop(): Promise<void> {
    try {
      do {
        this.again = false;
        const free = this.freeSlots();
        if (free <= 0 || !this.running) break;
        const runs = await this.options.store.claimPending(this.owner, free, this.now());
        for (const run of runs) this.launch(run);
        // every free slot filled: more may be pending; fewer: none is (until another instance or trigger queues one)
        this.backlog = runs.length === free;
        if (this.backlog) this.again = true;
      } while (this.again && this.running);
    } catch (e) {
      this.options.logger.error(`executor: claiming runs failed: ${(e as Error).message}`);
    } finally {
      this.claiming = false;
    }
  }

  /**
   * Executes a run claimed by this executor. `pipeline`: the one it was queued with, for a run queued already claimed
   * and started in the same turn; any other run executes its pipeline as stored now (read from memory where the store
   * keeps pipelines), and fails if it was deleted while the run waited.
   */
  private launch(run: ClaimedRun, queuedWith?: Pipeline): void {
    // a placeholder until the pipeline is loaded, so cancel/interrupt calls in between are not lost
    const pending = { cancelled: false, interrupted: false };
    const placeholder = {
      cancel: () => (pending.cancelled = true),
      interrupt: () => (pending.interrupted = true),
      finishing: false,
    };
    const entry: Active = {
      epoch: run.epoch,
      execution: placeholder as unknown as RunExecution,
      done: Promise.resolve(),
    };
    const go = async () => {
      const pipeline = queuedWith ?? (await this.options.pipelines.get(run.pipeline_id));
      if (!pipeline) {
        // under this claim: a run cancelled or taken over meanwhile is left as it is, and not announced failed
        const moved = await this.options.store.transition(
          run.id,
          ["running"],
          "failed",
          { error: "the pipeline was deleted", finished_at: this.now(), owner: null },
          run,
        );
        if (!moved) return;
        this.options.events.emit("run.failed", {
          run_id: run.id,
          pipeline_id: run.pipeline_id,
          status: "failed",
          error: "the pipeline was deleted",
          timestamp: this.now(),
        });
        return;
      }
      // a run never attempted before has no node runs to read back; the pipeline was just read from the store (by
      // the trigger that queued the run, or above), so its digest is the one the store handed out with it
      const execution = new RunExecution(this.deps, run, pipeline, {
        fresh: !run.attempted,
        claim: { owner: run.owner, epoch: run.epoch },
        planKey: digestOf(pipeline),
      });
      entry.execution = execution;
      entry.pipeline = pipeline;
      if (pending.cancelled) execution.cancel();
      if (pending.interrupted) execution.interrupt();
      await execution.execute();
    };
    // this process claimed the run again while an execution of an earlier claim still runs (it was taken over
    // from this process, then resumed here): the old one stops, and its writes are dropped as superseded
    this.active.get(run.id)?.execution.interrupt();
    this.active.set(run.id, entry);
    entry.done = go()
      .catch((e: unknown) => this.options.logger.error(`run ${run.id}: ${(e as Error).stack ?? String(e)}`))
      .finally(() => {
        if (this.active.get(run.id) === entry) this.active.delete(run.id);
        this.wake();
      });
  }

  /** Masks the secrets of every executing run (a batch write error can concern any of them). */
  private scrubAll(text: string): string {
    let masked = text;
    for (const { execution } of this.active.values())
      if (execution instanceof RunExecution) masked = execution.scrub(masked);
    return masked;
  }

  /** A run cancelled through another instance stops starting nodes here too, noticed within one poll interval. */
  private async noticeRemoteCancels(): Promise<void> {
    for (const id of this.activeRunIds) {
      if ((await this.options.store.get(id))?.status === "cancelled") this.cancel(id);
    }
  }

  /**
   * Runs left `running` by a dead owner become `failed` / `interrupted`: an owner on this host (same host part)
   * whose process is gone, a run without an owner, an owner whose heartbeat is older than `staleMs`, or a run of
   * this process whose heartbeat is (nothing here executes it any more).
   */
  async recover(): Promise<Run[]> {
    const staleBefore = Date.now() - (this.options.staleMs ?? DEFAULT_STALE_MS);
    const dead: (string | null)[] = [];
    let orphans = false;
    for (const { owner, heartbeat_at } of await this.options.store.runningOwners()) {
      if (owner === this.owner) {
        orphans = true;
        continue;
      }
      if (
        owner === null ||
        ownerProcessGone(owner, this.host) ||
        (heartbeat_at !== null && Date.parse(heartbeat_at) < staleBefore)
      )
        dead.push(owner);
    }
    const failed = dead.length > 0 ? await this.options.store.failRunsOfOwners(dead, INTERRUPTED, this.now()) : [];
    // runs of this very process that nothing here executes any more: their end could not be written (the database
    // was unreachable) and the heartbeat has left them; they are treated like a dead owner's
    if (orphans) {
      // heartbeats are stamped with the clock (`now()`): staleness of our own runs is measured with it too
      const at = new Date(
        this.options.clock.now().getTime() - (this.options.staleMs ?? DEFAULT_STALE_MS),
      ).toISOString();
      failed.push(...(await this.options.store.failRunsOfOwners([this.owner], INTERRUPTED, this.now(), at)));
    }
    if (failed.length === 0) return [];
    for (const run of failed) {
      this.options.events.emit("run.failed", {
        run_id: run.id,
        pipeline_id: run.pipeline_id,
        status: "failed",
        error: INTERRUPTED,
        timestamp: this.now(),
      });
    }
    for (const run of failed) {
      await this.resumeInterrupted(run).catch((e: unknown) =>
        this.options.logger.error(`run ${run.id}: resuming it after its instance died failed: ${(e as Error).message}`),
      );
    }
    return failed;
  }

  /**
   * A run whose instance died is queued again, to go on from the nodes that were executing, when each of them has a
   * retry left (the interrupted attempt counts as one, docs/runs.md); otherwise (or when no node was executing) it
   * stays `failed` / `interrupted`, resumable by hand.
   */
  private async resumeInterrupted(run: Run): Promise<void> {
    const pipeline = await this.options.pipelines.get(run.pipeline_id);
    if (!pipeline) return;
    const nodes = new Map(pipeline.nodes.map((n) => [n.id, n]));
    const nodeRuns = await this.options.store.nodeRuns(run.id);
    const interrupted = nodeRuns.filter((nr) => nr.status === "failed" && nr.error === INTERRUPTED);
    // no node was executing: there is no attempt to count a retry against (resume it by hand); a node that had failed
    // for good would run again with a fresh budget: that run is failing, leave it failed
    if (interrupted.length === 0 || nodeRuns.some((nr) => nr.status === "failed" && nr.error !== INTERRUPTED)) return;
    const spent = interrupted.filter((nr) => {
      const node = nodes.get(nr.node_id);
      return !node || nr.attempt >= executionSettings(node).maxRetries + 1;
    });
    const log = (level: LogLevel, message: string) =>
      this.writes.log({ run_id: run.id, node_id: null, level, message, timestamp: this.now() });
    if (spent.length > 0) {
      const names = spent.map((nr) => `${nr.node_id} (attempt ${nr.attempt})`).join(", ");
      log("warning", `interrupted: its instance stopped; not resumed, no retry left for ${names}`);
      return;
    }
    const moved = await this.options.store.transition(run.id, ["failed"], "pending", {
      error: null,
      finished_at: null,
      owner: null,
    });
    if (!moved) return;
    const from = interrupted.map((nr) => `${nr.node_id} (attempt ${nr.attempt + 1})`).join(", ");
    log("warning", `resumed automatically: its instance stopped; going on with ${from}`);
    this.options.events.emit("run.created", {
      run_id: run.id,
      pipeline_id: run.pipeline_id,
      status: "pending",
      timestamp: this.now(),
    });
    this.wake();
  }

  private now(): string {
    return nowIso(this.options.clock);
  }
}

function ownerProcessGone(owner: string, thisHost: string): boolean {
  const [host, pidText] = owner.split(":");
  const pid = Number(pidText);
  if (host !== thisHost || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
}
