import type { SecretsResolver } from "../connectors/resolver.js";
import { nowIso, type Clock } from "../clock.js";
import { descendants } from "../dag/graph.js";
import { SluiceError } from "../errors.js";
import { LOGGED_SEQ, type SluiceEvents } from "../events.js";
import type { UnsequencedEvent } from "../model/event-types.js";
import { newId } from "../ids.js";
import type { Logger } from "../logger.js";
import type { PipelineNode } from "../model/node.js";
import type { Pipeline } from "../model/pipeline.js";
import type { LogLevel, NodeRun, NodeRunStatus, Run, RunStatus } from "../model/run.js";
import { eventLogEntry, type RunClaim, type RunStore } from "../store/ports.js";
import { EMPTY_DATASET, withValue, type DataSet, type Row } from "./dataset.js";
import { dataSetJsonParts } from "./dataset-json.js";
import { DLQ_SAMPLE_ROWS, dlqPayload, type DlqPayload } from "./dlq-payload.js";
import { retryDelayMs } from "./execution-settings.js";
import { KEPT_PART_CHARS, keepOutput, keptOutput } from "./kept-output.js";
import type { HttpClient } from "./http/http-client.js";
import { createNodeContext, recordSecretsOf, type NodeContextOptions } from "./node-context.js";
import type { NodeContext, NodeResult, NodeTypeDefinition, NodeTypeRegistry } from "./node-type.js";
import { planOf, type PipelinePlan } from "./pipeline-plan.js";
import { profileDataSet, profiledAtOnce, profileInSlices, type NodeProfile } from "./profile.js";
import {
  jsonTextLength,
  LOG_LINE_CHARS,
  NODE_ERROR_CHARS,
  RETRY_EVENT_ERROR_CHARS,
  RunLogBudget,
} from "./run-log-budget.js";
import { SecretScrubber } from "./secret-scrubber.js";
import { Slices } from "./slices.js";
import { storedPreview } from "./stored-preview.js";
import { WriteBuffer, writeErrorText } from "./write-buffer.js";

export const PREVIEW_ROWS = 50;
/** Largest node output kept for resume when a run fails, in characters of JSON. */
const MAX_KEPT_OUTPUT_CHARS = 64_000_000;
export const INTERRUPTED = "interrupted";

/** What a run execution reads and writes in the run store (a dry run passes one that keeps nothing). */
export type ExecutionStore = Pick<
  RunStore,
  "insert" | "writeBatch" | "nodeRuns" | "output" | "deleteOutputs" | "insertDlq" | "transition" | "get"
>;

export interface RunExecutionDeps {
  store: ExecutionStore;
  events: SluiceEvents;
  clock: Clock;
  logger: Logger;
  registry: NodeTypeRegistry;
  secrets: SecretsResolver;
  fileRoots: readonly string[];
  /** The server's own state files, refused to file nodes and connections whatever the roots. */
  stateFiles: readonly string[];
  /** Parallelism when the pipeline sets none. */
  parallelism: number;
  /** Outbound HTTP of the nodes; default the guarded client with system DNS. */
  http?: HttpClient;
  /** Where run state is written: the executor's group commit, shared by its runs; default one per execution. */
  writes?: WriteBuffer;
  /**
   * Dry run: nodes of a type with effects are not executed; they end `skipped` and pass their first input
   * through, so the nodes after them still see data.
   */
  suppressEffects?: boolean;
}

/** How one node ended: its state, its output (passed downstream) and its error. */
export interface NodeOutcome {
  status: NodeRunStatus;
  output: DataSet | undefined;
  error: string | null;
}

class Interrupted extends Error {}

/** Runs the nodes of one claimed run wave by wave and records every state change (docs/runs.md, SPEC part 1). */
export class RunExecution {
  /** Whether the run is ending (its final state is being written): from then on, nothing can stop it. */
  finishing = false;
  private cancelled = false;
  /** Whether every stored secret was recorded (a resumed run: `recordSecretsReusedBy`). */
  private recordedEverySecret = false;
  private failed = false;
  private readonly shutdown = new AbortController();
  /** Aborted by cancel: executing attempts stop (a SQLite worker is terminated, a server statement cancelled). */
  private readonly cancelling = new AbortController();
  /**
   * Aborted by a cancel or a shutdown, whichever comes first, with its reason: what stops work in slices and the wait
   * between attempts (one signal made with the run: AbortSignal.any of the two costs about 20 µs).
   */
  private readonly stopping = new AbortController();
  /** The controllers of the attempts executing now: cancel and shutdown abort each (cheaper than listeners). */
  private readonly attempts = new Set<AbortController>();
  private readonly buffer: WriteBuffer;
  private readonly plan: PipelinePlan;
  private readonly state = new Map<string, NodeRunStatus>();
  private readonly records = new Map<string, NodeRun>();
  private readonly outputs = new Map<string, DataSet>();
  private firstError: string | null = null;
  /** Whether node runs of an earlier attempt of this run (a resume) were found. */
  private resumed = false;
  /** Nodes whose earlier attempt was interrupted (its instance died or stopped), with that attempt's number. */
  private readonly interruptedAttempts = new Map<string, number>();
  /** Secrets the run's nodes resolved: masked in every log line, node error and DLQ entry this run writes. */
  private readonly scrubber = new SecretScrubber();
  /** What the run logged, against its budget of log text. */
  private readonly logBudget = new RunLogBudget();

  /**
   * `fresh`: the run was just queued and never started, so it has no node runs to read back. `claim`: the executor's
   * claim of the run; every write is made under it, and refused once another instance has taken the run over.
   * `planKey`: a digest of `pipeline` as it is (planOf), where the caller has one.
   */
  constructor(
    private readonly deps: RunExecutionDeps,
    private readonly run: Run,
    private readonly pipeline: Pipeline,
    private readonly options: { fresh?: boolean; claim?: RunClaim; planKey?: string } = {},
  ) {
    this.buffer =
      deps.writes ??
      new WriteBuffer(deps.store, {
        onError: (e) =>
          deps.logger.error(
            `run ${run.id}: writing run state failed: ${writeErrorText(e, (text) => this.scrub(text))}`,
          ),
      });
    this.plan = planOf(pipeline, deps.registry, options.planKey);
  }

  /** Cancel: nodes already executing are aborted (and end `cancelled`), no new node starts. */
  cancel(): void {
    this.cancelled = true;
    this.cancelling.abort(new SluiceError("unprocessable", "the run was cancelled"));
    this.stopping.abort(this.cancelling.signal.reason);
    for (const attempt of this.attempts) attempt.abort(this.cancelling.signal.reason);
  }

  /** Process shutdown: aborts executing attempts; the run ends `failed` with error `interrupted` (resumable). */
  interrupt(): void {
    this.shutdown.abort(new Interrupted(INTERRUPTED));
    this.stopping.abort(this.shutdown.signal.reason);
    for (const attempt of this.attempts) attempt.abort(this.shutdown.signal.reason);
  }

  /** Masks the secrets this run's nodes resolved. */
  scrub(text: string): string {
    return this.scrubber.scrub(text);
  }

  /** Rows as people read them in previews and dry runs (`SecretScrubber.shownRows`); a cancel stops it. */
  shownRows(rows: readonly Row[]): Promise<Row[]> {
    return this.scrubber.shownRows(rows, this.stopping.signal);
  }

  /** Column names as people read them in previews and dry runs: masked, the first 1,000 (`SecretScrubber.shown`). */
  shownColumns(columns: string[]): string[] {
    return this.scrubber.shown(columns);
  }

  private shownProfile(profile: NodeProfile): NodeProfile {
    return { ...profile, columns: profile.columns.map((column) => this.scrubber.shown(column)) };
  }

  /** Every node's state, output and error once `execute()` has returned (what a dry run reports). */
  outcomes(): Map<string, NodeOutcome> {
    const result = new Map<string, NodeOutcome>();
    for (const node of this.pipeline.nodes) {
      result.set(node.id, {
        status: this.state.get(node.id) ?? "pending",
        output: this.outputs.get(node.id),
        error: this.records.get(node.id)?.error ?? null,
      });
    }
    return result;
  }

  async execute(): Promise<RunStatus> {
    const startedMs = Date.now();
    if (!this.cancelled) this.emitRun("run.started", "running");
    const waves = this.plan.waves;
    if (!waves.ok)
      return this.finish("failed", startedMs, `the graph has a cycle through nodes: ${waves.cycle.join(", ")}`);
    await this.prepareNodeRuns();
    const limit = this.pipeline.parallelism ?? this.deps.parallelism;
    for (const wave of waves.waves) {
      const todo = wave.filter((id) => this.state.get(id) === "pending");
      await runPool(
        todo,
        limit,
        () => !this.cancelled && !this.failed && !this.shutdown.signal.aborted,
        (id) => this.runNode(id),
      );
      if (this.cancelled || this.failed || this.shutdown.signal.aborted) break;
    }
    if (this.shutdown.signal.aborted) return this.finish("failed", startedMs, INTERRUPTED);
    if (this.cancelled) return this.finish("cancelled", startedMs, null);
    if (this.failed) return this.finish("failed", startedMs, this.firstError);
    return this.finish("success", startedMs, null);
  }

  /** Node runs of a resumed run keep their ids; succeeded nodes whose output was persisted are not run again. */
  private async prepareNodeRuns(): Promise<void> {
    const earlier = this.options.fresh ? [] : await this.deps.store.nodeRuns(this.run.id);
    const existing = new Map(earlier.map((nr) => [nr.node_id, nr]));
    this.resumed = existing.size > 0;
    for (const node of this.pipeline.nodes) {
      const before = existing.get(node.id);
      if (before?.status === "success") {
        const data = await keptOutput(this.deps.store, this.run.id, node.id);
        if (data) {
          // what it resolved is in its output, and so in the previews and DLQ entries of the nodes after it
          await this.recordSecretsReusedBy(node);
          this.outputs.set(node.id, data);
          this.state.set(node.id, "success");
          this.records.set(node.id, before);
          this.log("info", `skipped on resume: succeeded before (${data.rows.length} rows reused)`, node.id);
          continue;
        }
      }
      if (before?.status === "failed" && before.error === INTERRUPTED)
        this.interruptedAttempts.set(node.id, before.attempt);
      const record: NodeRun = {
        id: before?.id ?? newId(),
        run_id: this.run.id,
        node_id: node.id,
        status: "pending",
        attempt: 0,
        row_count: 0,
        duration_ms: 0,
        started_at: null,
        finished_at: null,
        error: null,
      };
      this.records.set(node.id, record);
      this.state.set(node.id, "pending");
      this.buffer.nodeRun(record, this.options.claim);
    }
  }

  private async runNode(id: string): Promise<void> {
    const node = this.plan.nodes.get(id) as PipelineNode;
    const record = this.records.get(id) as NodeRun;
    const inputIds = this.plan.adjacency.upstream.get(id) ?? [];
    const inputs = inputIds.map((up) => this.outputs.get(up) ?? EMPTY_DATASET);
    const started = Date.now();
    const startedAt = this.now();
    // an attempt cut short by an instance's death counts: a resumed node goes on with the next one (and gets at least
    // that one when resumed by hand)
    const first = (this.interruptedAttempts.get(id) ?? 0) + 1;
    Object.assign(record, { status: "running", attempt: first, started_at: startedAt, finished_at: null, error: null });
    this.state.set(id, "running");
    this.buffer.nodeRun(record, this.options.claim);
    this.emitNode("node.started", id, { status: "running" });

    const planned = this.plan.planned.get(id);
    if (!planned?.ok) return this.failNode(id, started, inputs, planned?.error ?? `unknown node '${id}'`);
    const { def, config, settings } = planned;
    if (def.effects && this.deps.suppressEffects) return this.suppressNode(id, started, inputs);
    const attempts = Math.max(settings.maxRetries + 1, first);
    for (let attempt = first; attempt <= attempts; attempt++) {
      if (attempt > first) {
        record.attempt = attempt;
        this.buffer.nodeRun(record, this.options.claim);
      }
      // a node that can retry logs each attempt; one that cannot has its start in node.started and the node run
      if (settings.maxRetries > 0) this.log("info", `attempt ${attempt}/${attempts} started`, id);
      try {
        const result = await this.attempt(def, node, config, inputs, inputIds, attempt, settings.timeoutMs);
        const ended = { duration: Date.now() - started, at: this.now() };
        // the profile and preview, not counted in the node's time; a large output's in slices, which a cancel or a
        // shutdown stops (below)
        const { output } = result;
        const profile = profiledAtOnce(output)
          ? profileDataSet(id, output)
          : await profileInSlices(id, output, this.stopping.signal);
        const previewRows = await this.shownRows(output.rows.slice(0, PREVIEW_ROWS));
        return this.succeedNode(id, ended, result, profile, previewRows);
      } catch (e) {
        const message = this.nodeError(errorMessage(e));
        if (this.shutdown.signal.aborted) return this.failNode(id, started, inputs, INTERRUPTED, false);
        if (this.cancelled) return this.cancelNode(id, started, message);
        if (attempt >= attempts) return this.failNode(id, started, inputs, message);
        const delay = retryDelayMs(settings.retryDelayS, attempt);
        this.log("warning", `attempt ${attempt}/${attempts} failed: ${message}; retrying in ${delay / 1000} s`, id);
        // the whole error is in the log line above (within the run's budget) and in the node run if it fails for good;
        // the event, one per retry of every node, carries its start
        this.emitNode("node.retrying", id, {
          status: "running",
          error: this.scrubber.maskedCut(message, RETRY_EVENT_ERROR_CHARS),
          attempt: attempt + 1,
        });
        try {
          // a cancel ends the wait too: the node ends `cancelled` now, not after its retry delay
          await sleep(delay, this.stopping.signal);
        } catch {
          if (this.shutdown.signal.aborted) return this.failNode(id, started, inputs, INTERRUPTED, false);
          return this.cancelNode(id, started, errorMessage(this.cancelling.signal.reason));
        }
      }
    }
  }

  private async attempt(
    def: NodeTypeDefinition<unknown>,
    node: PipelineNode,
    config: unknown,
    inputs: DataSet[],
    inputIds: readonly string[],
    attempt: number,
    timeoutMs: number,
  ): Promise<NodeResult> {
    const controller = new AbortController();
    this.attempts.add(controller);
    if (this.cancelling.signal.aborted) controller.abort(this.cancelling.signal.reason);
    const timedOut = () => new SluiceError("internal", `timed out after ${timeoutMs / 1000} s (attempt ${attempt})`);
    const timer = setTimeout(() => controller.abort(timedOut()), timeoutMs);
    const began = performance.now();
    const ctx = this.contextFor(node, {
      attempt,
      signal: controller.signal,
      timeoutMs,
      inputIds,
      log: (level, message) => this.log(level, message, node.id),
      deadLetter: (payload, error) => this.deadLetter(node, payload, error),
    });
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason as Error), { once: true });
    });
    try {
      const result = await Promise.race([def.run(ctx, config, inputs), aborted]);
      // a node whose last stretch on the server's thread ran past the deadline ends before the timer can fire (an
      // aggregate over one row of 2,000 aggregations ended success 6 s after a 1 s timeout): it timed out all the same
      if (performance.now() - began > timeoutMs) throw timedOut();
      if (!result || !result.output || !Array.isArray(result.output.rows) || !Array.isArray(result.output.columns)) {
        throw new SluiceError("internal", "the node returned no DataSet");
      }
      return result;
    } finally {
      clearTimeout(timer);
      this.attempts.delete(controller);
      aborted.catch(() => undefined);
    }
  }

  /**
   * Records the secrets a node that is not run again may have put in its kept output. Every stored secret where the
   * resolver can list them: the pipeline may have been edited since that output was made, so its current config
   * may no longer name them (found by a helper's attack). Otherwise what its current config names.
   */
  private async recordSecretsReusedBy(node: PipelineNode): Promise<void> {
    const { secrets } = this.deps;
    if (!secrets.secretNames) return recordSecretsOf(this.contextFor(node), node.config);
    if (this.recordedEverySecret) return;
    this.recordedEverySecret = true;
    const names = await secrets.secretNames();
    for (const id of names.connections) {
      const connection = await secrets.connection(id).catch(() => null);
      if (connection) this.scrubber.addConnection(connection);
    }
    for (const key of names.variables) this.scrubber.add((await secrets.variable(key).catch(() => null))?.value);
  }

  /** The context `node` runs with in this run; `attempt` adds what one attempt has of its own. */
  private contextFor(
    node: PipelineNode,
    attempt: Partial<
      Pick<NodeContextOptions, "attempt" | "signal" | "timeoutMs" | "inputIds" | "log" | "deadLetter">
    > = {},
  ): NodeContext {
    return createNodeContext({
      runId: this.run.id,
      pipelineId: this.pipeline.id,
      pipelineName: this.pipeline.name,
      node,
      params: this.run.params,
      fileRoots: this.deps.fileRoots,
      stateFiles: this.deps.stateFiles,
      startedAt: this.run.started_at ?? this.run.created_at,
      secrets: this.deps.secrets,
      scrubber: this.scrubber,
      ...(this.deps.http ? { http: this.deps.http } : {}),
      ...attempt,
    });
  }

  /** `ended`: the node's time, and when it ended; `profile`: its output's. */
  private succeedNode(
    id: string,
    ended: { duration: number; at: string },
    result: NodeResult,
    profile: NodeProfile,
    previewRows: Row[],
  ): void {
    const record = this.records.get(id) as NodeRun;
    const output = result.output;
    const rowCount = result.rowCount ?? output.rows.length;
    const { duration } = ended;
    Object.assign(record, {
      status: "success",
      row_count: rowCount,
      duration_ms: duration,
      finished_at: ended.at,
      error: null,
    });
    this.state.set(id, "success");
    this.outputs.set(id, output);
    this.buffer.nodeRun(record, this.options.claim);
    this.buffer.output(
      {
        run_id: this.run.id,
        node_id: id,
        kind: "preview",
        // a preview is readable by viewers: a secret that reached the data (an API echoing its credentials) is masked,
        // and what people read is bounded (engine/shown-value.ts), row by row
        data: storedPreview(id, this.shownColumns(output.columns), previewRows),
      },
      this.options.claim,
    );
    this.buffer.output(
      {
        run_id: this.run.id,
        node_id: id,
        kind: "profile",
        data: this.shownProfile(profile),
      },
      this.options.claim,
    );
    // one line per node that succeeded: the engine's count and time, and what the node says it did
    const said = typeof result.summary === "string" && result.summary ? `; ${result.summary}` : "";
    this.log("info", `completed: ${rowCount} rows in ${duration} ms${said}`, id);
    this.emitNode("node.completed", id, { status: "success", row_count: rowCount, duration_ms: duration });
    if (result.skipDownstream) {
      for (const down of descendants(this.plan.adjacency, id)) {
        if (this.state.get(down) !== "pending") continue;
        const skipped = this.records.get(down) as NodeRun;
        Object.assign(skipped, { status: "skipped", finished_at: this.now() });
        this.state.set(down, "skipped");
        this.buffer.nodeRun(skipped, this.options.claim);
        this.log("info", `skipped: condition '${id}' was false`, down);
        this.emitNode("node.skipped", down, { status: "skipped" });
      }
    }
  }

  /** A node with effects in a dry run: not executed; its first input passes through to the nodes after it. */
  private suppressNode(id: string, started: number, inputs: DataSet[]): void {
    const record = this.records.get(id) as NodeRun;
    Object.assign(record, { status: "skipped", duration_ms: Date.now() - started, finished_at: this.now() });
    this.state.set(id, "skipped");
    this.outputs.set(id, inputs[0] ?? EMPTY_DATASET);
    this.buffer.nodeRun(record, this.options.claim);
    this.log("info", "not executed: a dry run suppresses effects", id);
    this.emitNode("node.skipped", id, { status: "skipped" });
  }

  /** A node stopped by the run's cancel: `cancelled` with the reason; no retry, no DLQ entry. */
  private cancelNode(id: string, started: number, error: string): void {
    const record = this.records.get(id) as NodeRun;
    Object.assign(record, { status: "cancelled", duration_ms: Date.now() - started, finished_at: this.now(), error });
    this.state.set(id, "cancelled");
    this.buffer.nodeRun(record, this.options.claim);
    this.log("warning", `cancelled: ${error}`, id);
  }

  private async failNode(
    id: string,
    started: number,
    inputs: DataSet[],
    rawError: string,
    deadLetter = true,
  ): Promise<void> {
    const error = this.nodeError(rawError);
    const record = this.records.get(id) as NodeRun;
    const duration = Date.now() - started;
    Object.assign(record, { status: "failed", duration_ms: duration, finished_at: this.now(), error });
    this.state.set(id, "failed");
    this.buffer.nodeRun(record, this.options.claim);
    this.failed = true;
    this.firstError ??= `node '${id}' failed: ${error}`;
    this.log("error", `failed: ${error}`, id);
    this.emitNode("node.failed", id, { status: "failed", error, duration_ms: duration });
    if (deadLetter) {
      const sample = inputs.flatMap((input) => input.rows.slice(0, DLQ_SAMPLE_ROWS)).slice(0, DLQ_SAMPLE_ROWS);
      const payload = await dlqPayload(sample, (row) => this.scrubber.shown(row));
      await this.deadLetter(this.plan.nodes.get(id) as PipelineNode, payload, error).catch((e: unknown) =>
        this.deps.logger.error(
          `run ${this.run.id}: writing the DLQ entry failed: ${this.scrubber.scrub((e as Error).message)}`,
        ),
      );
    }
  }

  /** Writes a DLQ entry of `payload`, its rows already as people may read them (dlqPayload). */
  private async deadLetter(node: PipelineNode, payload: DlqPayload, error: string): Promise<void> {
    await this.deps.store.insertDlq([
      {
        id: newId(),
        pipeline_id: this.pipeline.id,
        run_id: this.run.id,
        node_id: node.id,
        node_name: node.name ?? node.id,
        error: this.scrubber.scrub(payload.note ? `${error}; ${payload.note}` : error),
        payload: payload.rows,
        created_at: this.now(),
        resolved: false,
        resolved_at: null,
      },
    ]);
  }

  private async finish(status: RunStatus, startedMs: number, rawError: string | null): Promise<RunStatus> {
    this.finishing = true;
    const error = rawError === null ? null : this.scrubber.scrub(rawError);
    for (const [id, state] of this.state) {
      if (state !== "pending" || status === "failed") continue;
      const record = this.records.get(id) as NodeRun;
      Object.assign(record, { status: "cancelled", finished_at: this.now() });
      this.buffer.nodeRun(record, this.options.claim);
    }
    if (status === "failed") {
      // persisted so `resume` can skip these nodes and still feed their data downstream, their JSON made in slices
      // (queued before the run's end, so committed with it or before); an output too large to keep, or that cannot be
      // written as JSON, is not kept, and its node runs again on resume
      const slices = new Slices();
      for (const [id, state] of this.state) {
        const data = this.outputs.get(id);
        if (state !== "success" || !data) continue;
        const json = await dataSetJsonParts(data, slices, MAX_KEPT_OUTPUT_CHARS, KEPT_PART_CHARS);
        if (json !== null)
          await keepOutput(this.buffer, { runId: this.run.id, nodeId: id, claim: this.options.claim }, json);
        else
          this.log(
            "warning",
            `output not kept for resume: over ${MAX_KEPT_OUTPUT_CHARS / 1_000_000} million characters as JSON, or not ` +
              "writable as JSON; a resume runs this node again",
            id,
          );
      }
    }
    const dropped = this.logBudget.summary();
    if (dropped) this.log("warning", dropped, null, true);
    if (status === "cancelled") {
      await this.buffer.flush();
      return "cancelled"; // the cancel itself moved the run and emitted run.cancelled
    }
    const duration = Date.now() - startedMs;
    const end =
      status === "success"
        ? ({ type: "run.completed", payload: this.event({ status, duration_ms: duration }) } as const)
        : ({
            type: "run.failed",
            payload: this.event({ status, error: error ?? "failed", duration_ms: duration }),
          } as const);
    // committed with the node runs, logs and outputs queued before it: one transaction, shared with other runs; the
    // event announcing the end is logged in it too, if the run moved (no second transaction before clients hear)
    const owner = this.options.claim?.owner;
    let seq: number | undefined;
    const moved = await this.buffer.transition(
      {
        id: this.run.id,
        from: ["running"],
        to: status,
        fields: { error, finished_at: this.now(), owner: null },
        claim: this.options.claim,
        ...(owner ? { event: eventLogEntry(owner, withValue(end.payload, "type", end.type) as UnsequencedEvent) } : {}),
      },
      (logged) => (seq = logged),
    );
    if (!moved) return (await this.deps.store.get(this.run.id))?.status ?? status;
    // announced at once: it is in the log already, and nothing may come between (the next events are numbered after)
    if (seq !== undefined) Object.defineProperty(end.payload, LOGGED_SEQ, { value: seq });
    (this.deps.events.emit as (t: string, e: unknown) => boolean)(end.type, end.payload);
    // then the cleanup: outputs kept by an earlier failed attempt (for resume) are not needed any more; if it fails
    // they only take room until the run is purged
    if (status === "success" && this.resumed) {
      await this.deps.store
        .deleteOutputs(this.run.id, "output")
        .catch((e: unknown) =>
          this.deps.logger.error(
            `run ${this.run.id}: deleting the outputs kept for resume failed: ${writeErrorText(e, (text) => this.scrub(text))}`,
          ),
        );
    }
    return status;
  }

  /** A node's error as the run keeps it: masked, then cut to {@link NODE_ERROR_CHARS} (a thrown error can be huge). */
  private nodeError(raw: string): string {
    return this.scrubber.maskedCut(raw, NODE_ERROR_CHARS);
  }

  /**
   * A log line, masked and cut to {@link LOG_LINE_CHARS}, kept while the run's budget of log lasts (`RunLogBudget`);
   * `always`: kept whatever the budget (the line saying that lines are dropped, and how many).
   */
  private log(level: LogLevel, rawMessage: string, nodeId: string | null, always = false): void {
    const message = this.scrubber.maskedCut(rawMessage, LOG_LINE_CHARS);
    if (!always) {
      const admitted = this.logBudget.admit(jsonTextLength(message) + (nodeId?.length ?? 0));
      if (admitted === "full")
        this.log("warning", "log limit reached: further lines are counted, not kept", nodeId, true);
      if (admitted !== "kept") return;
    }
    const timestamp = this.now();
    this.buffer.log({ run_id: this.run.id, node_id: nodeId, level, message, timestamp }, this.options.claim);
    this.deps.events.emit("log", {
      run_id: this.run.id,
      pipeline_id: this.pipeline.id,
      node_id: nodeId,
      level,
      message,
      timestamp,
    });
  }

  private emitRun(type: "run.started", status: RunStatus): void {
    this.deps.events.emit(type, this.event({ status }));
  }

  private emitNode<K extends "node.started" | "node.completed" | "node.failed" | "node.retrying" | "node.skipped">(
    type: K,
    nodeId: string,
    fields: Record<string, unknown>,
  ): void {
    (this.deps.events.emit as (t: string, e: unknown) => boolean)(type, this.event({ node_id: nodeId, ...fields }));
  }

  /**
   * An event of this run: its ids and time, then `fields`. Built as a literal with `fields` spread last, not as
   * `{ ...base, ...fields }`: V8 turns a spread copy given new keys into a slow dictionary object.
   */
  private event<F extends object>(fields: F) {
    return { run_id: this.run.id, pipeline_id: this.pipeline.id, timestamp: this.now(), ...fields };
  }

  private now(): string {
    return nowIso(this.deps.clock);
  }
}

function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Runs `fn` over `ids` with at most `limit` at once; stops starting new ones when `mayStart()` turns false. */
async function runPool(
  ids: readonly string[],
  limit: number,
  mayStart: () => boolean,
  fn: (id: string) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length && mayStart()) await fn(ids[next++] as string);
  };
  await Promise.all(Array.from({ length: Math.min(limit, ids.length) }, worker));
}
