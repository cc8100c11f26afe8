import { digestOf } from "../content-digest.js";
import { nowIso, type Clock } from "../clock.js";
import { validatePipelineDefinition } from "../dag/validate-pipeline.js";
import { notFound, SluiceError } from "../errors.js";
import type { SluiceEvents } from "../events.js";
import { isTerminalRunStatus, type StreamedEvent } from "../model/event-types.js";
import { newId } from "../ids.js";
import { previewOf, type StoredPreview } from "../engine/stored-preview.js";
import { DLQ_LIST_CHARS } from "../engine/dlq-payload.js";
import { dryRunPipeline, type DryRunDeps } from "../engine/dry-run.js";
import type { Executor } from "../engine/executor.js";
import type { NodeTypeRegistry } from "../engine/node-type.js";
import type { Page } from "../model/common.js";
import { PER_PAGE_DEFAULT } from "../model/common.js";
import { DlqQuerySchema, type DlqEntry, type DlqQuery } from "../model/dlq.js";
import type { Pipeline } from "../model/pipeline.js";
import {
  BACKFILL_MAX_DATES,
  BackfillRequestSchema,
  type LogsQuery,
  TriggerRunRequestSchema,
  type CalendarDay,
  type DryRunNodeResult,
  type LogEntry,
  type LogLevel,
  type NodePreview,
  type NodeRun,
  type Run,
  type RunAccepted,
  type RunListEntry,
  type RunsListQuery,
  type RunTrigger,
  type RunWithNodes,
} from "../model/run.js";
import type { NodeProfile } from "../engine/profile.js";
import type { Store } from "../store/ports.js";
import { parseInput } from "../validation.js";
import type { InsightsService } from "./insights-service.js";

export interface RunServiceDeps {
  store: Store;
  events: SluiceEvents;
  clock: Clock;
  executor: Executor;
  registry: NodeTypeRegistry;
  insights: InsightsService;
  dryRun: DryRunDeps;
}

const DAY_MS = 86_400_000;
/** Pipelines whose validation is remembered. */
const MAX_VALIDATED = 1000;

/** Running pipelines and reading runs (SPEC part 4 "Running pipelines and runs", docs/api.md). */
export class RunService {
  /** Validation errors by digest of a pipeline's definition (see `validationErrors`). */
  private readonly validated = new Map<string, readonly string[]>();

  constructor(private readonly deps: RunServiceDeps) {}

  /** Queues a run; the executor claims it at once. Invalid graph → 422 with `errors`. */
  async trigger(pipelineId: string, input: { params?: unknown; trigger?: RunTrigger } = {}): Promise<Run> {
    const { params } = parseInput(TriggerRunRequestSchema, { params: input.params ?? {} });
    const pipeline = await this.runnablePipeline(pipelineId);
    const [run] = await this.enqueue(pipeline, [{ ...pipeline.params, ...params }], input.trigger ?? "manual");
    return run as Run;
  }

  /**
   * Queues the run of schedule slot `slotIso`, recorded as fired in the same transaction; null when the slot already
   * fired (another instance, or an earlier attempt whose answer was lost).
   */
  async triggerSlot(pipelineId: string, trigger: "schedule" | "catchup", slotIso: string): Promise<Run | null> {
    const pipeline = await this.runnablePipeline(pipelineId);
    const [run] = await this.enqueue(pipeline, [{ ...pipeline.params }], trigger, slotIso);
    return run ?? null;
  }

  /** The HTTP body of a trigger: `{params?}`. */
  async triggerFromBody(pipelineId: string, body: unknown): Promise<RunAccepted> {
    const { params } = parseInput(TriggerRunRequestSchema, body ?? {});
    const run = await this.trigger(pipelineId, { params });
    return { id: run.id, pipeline_id: run.pipeline_id, status: run.status };
  }

  /** One run per date of the inclusive range, each with param `date`. */
  async backfill(pipelineId: string, body: unknown): Promise<string[]> {
    const request = parseInput(BackfillRequestSchema, body ?? {});
    const start = Date.parse(`${request.start_date}T00:00:00Z`);
    const end = Date.parse(`${request.end_date}T00:00:00Z`);
    if (end < start) throw new SluiceError("bad_request", "end_date must not be before start_date");
    const count = Math.round((end - start) / DAY_MS) + 1;
    if (count > BACKFILL_MAX_DATES)
      throw new SluiceError("bad_request", `a backfill covers at most ${BACKFILL_MAX_DATES} dates (got ${count})`);
    const pipeline = await this.runnablePipeline(pipelineId);
    const paramSets = Array.from({ length: count }, (_, i) => ({
      ...pipeline.params,
      ...request.params,
      date: new Date(start + i * DAY_MS).toISOString().slice(0, 10),
    }));
    return (await this.enqueue(pipeline, paramSets, "backfill")).map((r) => r.id);
  }

  /**
   * Runs every node in memory: no run record, no events, no DLQ; the first 10 rows per node. `signal` stops it
   * (the client went away) as a cancel stops a run.
   */
  async dryRun(
    pipelineId: string,
    body: unknown = {},
    signal?: AbortSignal,
  ): Promise<Record<string, DryRunNodeResult>> {
    const { params } = parseInput(TriggerRunRequestSchema, body ?? {});
    const pipeline = await this.runnablePipeline(pipelineId);
    return dryRunPipeline(this.deps.dryRun, pipeline, { ...pipeline.params, ...params }, signal);
  }

  async get(runId: string): Promise<RunWithNodes> {
    const run = await this.requireRun(runId);
    return { ...run, node_runs: await this.deps.store.runs.nodeRuns(runId) };
  }

  /**
   * The 50 most recent runs (plain array), or the page envelope when `page`/`per_page` is given. With
   * `include: "nodes"` each run carries its `node_runs`, read for the whole page in one query.
   */
  async listForPipeline(pipelineId: string, query: RunsListQuery = {}): Promise<RunListEntry[] | Page<RunListEntry>> {
    await this.requirePipeline(pipelineId);
    const page = query.page ?? 1;
    const per_page = query.per_page ?? PER_PAGE_DEFAULT;
    const listed = await this.deps.store.runs.listForPipeline(pipelineId, { page, per_page });
    const items = query.include === "nodes" ? await this.withNodeRuns(listed.items) : listed.items;
    if (query.page === undefined && query.per_page === undefined) return items;
    return { items, total: listed.total, page, per_page, pages: Math.ceil(listed.total / per_page) };
  }

  private async withNodeRuns(runs: Run[]): Promise<RunWithNodes[]> {
    const byRun = new Map<string, NodeRun[]>(runs.map((r) => [r.id, []]));
    for (const nodeRun of await this.deps.store.runs.nodeRunsOfRuns(runs.map((r) => r.id)))
      byRun.get(nodeRun.run_id)?.push(nodeRun);
    return runs.map((run) => ({ ...run, node_runs: byRun.get(run.id) ?? [] }));
  }

  /** pending/running → cancelled (executing nodes are stopped, no new node starts); a finished run → 409. */
  async cancel(runId: string): Promise<{ id: string; status: "cancelled" }> {
    const run = await this.requireRun(runId);
    // a run this process is ending has its end decided: the cancel waits for it, and is refused as for any finished run
    await this.deps.executor.ending(runId);
    const now = this.now();
    // the owner stays: its executor still records how the executing nodes ended (under its claim, store/fence.ts)
    const moved = await this.deps.store.runs.transition(runId, ["pending", "running"], "cancelled", {
      finished_at: now,
    });
    if (!moved) {
      const current = (await this.deps.store.runs.get(runId))?.status ?? run.status;
      throw new SluiceError(
        "conflict",
        `run '${runId}' is already ${current}; only pending or running runs can be cancelled`,
      );
    }
    this.deps.executor.cancel(runId);
    await this.appendLog(runId, "warning", "run cancelled");
    this.deps.events.emit("run.cancelled", {
      run_id: runId,
      pipeline_id: run.pipeline_id,
      status: "cancelled",
      timestamp: now,
    });
    return { id: runId, status: "cancelled" };
  }

  /** Only a `failed` run (else 400): same id, back to `pending`; succeeded nodes are skipped and feed their data on. */
  async resume(runId: string): Promise<{ id: string; status: "pending" }> {
    const run = await this.requireRun(runId);
    if (run.status !== "failed")
      throw new SluiceError("bad_request", `only failed runs can be resumed; run '${runId}' is ${run.status}`);
    const moved = await this.deps.store.runs.transition(runId, ["failed"], "pending", {
      error: null,
      finished_at: null,
      owner: null,
    });
    if (!moved) throw new SluiceError("bad_request", `only failed runs can be resumed; run '${runId}' changed state`);
    await this.appendLog(runId, "info", "run resumed");
    this.deps.events.emit("run.created", {
      run_id: runId,
      pipeline_id: run.pipeline_id,
      status: "pending",
      timestamp: this.now(),
    });
    this.deps.executor.wake();
    return { id: runId, status: "pending" };
  }

  async logs(runId: string, filter: LogsQuery = {}): Promise<LogEntry[]> {
    await this.requireRun(runId);
    return this.deps.store.runs.logs(runId, filter);
  }

  /** Text lines `timestamp [level] [node_id] message` (`-` for run-level lines). */
  async exportLogs(runId: string): Promise<string> {
    const entries = await this.logs(runId);
    return entries.map((e) => `${e.timestamp} [${e.level}] [${e.node_id ?? "-"}] ${e.message}\n`).join("");
  }

  /** `{node_id, columns, rows}` — the first 50 rows of the node's output. */
  async preview(runId: string, nodeId: string): Promise<NodePreview> {
    await this.requireRun(runId);
    const data = await this.deps.store.runs.output(runId, nodeId, "preview");
    if (!data) throw new SluiceError("not_found", `no output of node '${nodeId}' in run '${runId}'`);
    return previewOf(data as StoredPreview);
  }

  /** Profile computed from the node's whole output. */
  async profile(runId: string, nodeId: string): Promise<NodeProfile> {
    await this.requireRun(runId);
    const data = await this.deps.store.runs.output(runId, nodeId, "profile");
    if (!data) throw new SluiceError("not_found", `no output of node '${nodeId}' in run '${runId}'`);
    return data as NodeProfile;
  }

  /**
   * One entry per UTC day, oldest first (days already clamped by the query schema); of one pipeline's runs when
   * `pipelineId` is given (404 when it does not exist).
   */
  async calendar(days: number, pipelineId?: string): Promise<CalendarDay[]> {
    if (pipelineId !== undefined) await this.requirePipeline(pipelineId);
    return this.deps.insights.trends(days, pipelineId);
  }

  async dlqList(pipelineId: string, query: Partial<DlqQuery> = {}): Promise<DlqEntry[]> {
    const { include_resolved, limit } = { ...DlqQuerySchema.parse({}), ...query };
    await this.requirePipeline(pipelineId);
    return this.deps.store.runs.listDlq(pipelineId, include_resolved, limit, DLQ_LIST_CHARS);
  }

  async dlqResolve(pipelineId: string, dlqId: string): Promise<{ id: string; status: "resolved" }> {
    if (!(await this.deps.store.runs.resolveDlq(pipelineId, dlqId, this.now()))) throw notFound("DLQ entry", dlqId);
    return { id: dlqId, status: "resolved" };
  }

  /** Scheduler port: the most recent run of a pipeline. */
  latestRun(pipelineId: string): Promise<Run | null> {
    return this.deps.store.runs.latest(pipelineId);
  }

  lastSuccessFinishedAt(pipelineId: string): Promise<string | null> {
    return this.deps.store.runs.lastSuccessFinishedAt(pipelineId);
  }

  /** A run log line from outside the executor (hooks, cancel); also on the event bus. */
  async appendLog(runId: string, level: LogLevel, message: string, nodeId: string | null = null): Promise<void> {
    const run = await this.deps.store.runs.get(runId);
    if (!run) return;
    const timestamp = this.now();
    await this.deps.store.runs.writeBatch({
      nodeRuns: [],
      outputs: [],
      logs: [{ run_id: runId, node_id: nodeId, level, message, timestamp }],
    });
    this.deps.events.emit("log", {
      run_id: runId,
      pipeline_id: run.pipeline_id,
      node_id: nodeId,
      level,
      message,
      timestamp,
    });
  }

  /** The terminal event of a finished run, for WebSocket clients that connect after the journal forgot it. */
  async terminalEvent(runId: string): Promise<StreamedEvent | null> {
    const run = await this.deps.store.runs.get(runId);
    if (!run || !isTerminalRunStatus(run.status)) return null;
    const base = {
      seq: 0,
      run_id: run.id,
      pipeline_id: run.pipeline_id,
      status: run.status,
      timestamp: run.finished_at ?? run.created_at,
    };
    if (run.status === "success") return { ...base, type: "run.completed" };
    if (run.status === "failed") return { ...base, type: "run.failed", error: run.error ?? "failed" };
    return { ...base, type: "run.cancelled" };
  }

  private async enqueue(
    pipeline: Pipeline,
    paramSets: Record<string, string>[],
    trigger: RunTrigger,
    slotIso?: string,
  ): Promise<Run[]> {
    const created_at = this.now();
    const runs: Run[] = paramSets.map((params) => ({
      id: newId(),
      pipeline_id: pipeline.id,
      status: "pending",
      trigger,
      params,
      error: null,
      created_at,
      started_at: null,
      finished_at: null,
    }));
    // durable before the caller hears of them: a slot's run with the slot's record, others in the transaction the
    // executor writes run state in next — those this executor has a free slot for queued already claimed by it
    // (the same as queued and claimed in one transaction), so they start without a claim
    const claimed = slotIso === undefined ? this.deps.executor.takeSlots(runs.length) : 0;
    const queued = runs.map((run, i) =>
      i < claimed
        ? { ...run, status: "running" as const, started_at: created_at, owner: this.deps.executor.owner }
        : run,
    );
    if (slotIso !== undefined) {
      if (!(await this.deps.store.schedulerState.claimSlot(pipeline.id, slotIso, runs))) return [];
    } else {
      try {
        await this.deps.executor.writes.insertRuns(queued);
      } catch (e) {
        this.deps.executor.abandonClaimed(queued.slice(0, claimed));
        throw e;
      }
    }
    // started first (at the end of this turn, so after run.created): a throwing event listener cannot strand them
    for (const run of queued.slice(0, claimed)) this.deps.executor.startClaimed(run, pipeline);
    if (claimed < runs.length) this.deps.executor.queuedPending();
    for (const run of runs) {
      this.deps.events.emit("run.created", {
        run_id: run.id,
        pipeline_id: run.pipeline_id,
        status: "pending",
        timestamp: created_at,
      });
    }
    if (claimed < runs.length) this.deps.executor.wake();
    return runs;
  }

  /** The pipeline, if its graph and node configs are runnable; else 422 with `errors`. */
  private async runnablePipeline(pipelineId: string): Promise<Pipeline> {
    const pipeline = await this.deps.store.pipelines.get(pipelineId);
    if (!pipeline) throw notFound("pipeline", pipelineId);
    const errors = this.validationErrors(pipeline);
    if (errors.length > 0)
      throw new SluiceError("unprocessable", `pipeline '${pipelineId}' cannot run: its graph is invalid`, {
        errors: [...errors],
      });
    return pipeline;
  }

  /**
   * The pipeline's validation errors, computed once per content: validating a 40-node pipeline costs about a
   * millisecond, and every trigger of an unchanged pipeline would repeat it. Keyed by a digest of the whole
   * definition, so any change is validated anew.
   */
  private validationErrors(pipeline: Pipeline): readonly string[] {
    // read from the store just now (runnablePipeline): the digest it came with is its content's
    const key = digestOf(pipeline);
    let errors = this.validated.get(key);
    if (!errors) {
      errors = validatePipelineDefinition(pipeline, [], this.deps.registry).errors;
      if (this.validated.size >= MAX_VALIDATED) this.validated.delete(this.validated.keys().next().value as string);
      this.validated.set(key, errors);
    }
    return errors;
  }

  private async requirePipeline(pipelineId: string): Promise<void> {
    if (!(await this.deps.store.pipelines.existingIds([pipelineId])).has(pipelineId))
      throw notFound("pipeline", pipelineId);
  }

  private async requireRun(runId: string): Promise<Run> {
    const run = await this.deps.store.runs.get(runId);
    if (!run) throw notFound("run", runId);
    return run;
  }

  private now(): string {
    return nowIso(this.deps.clock);
  }
}
