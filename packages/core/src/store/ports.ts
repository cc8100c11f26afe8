import type { PageRequest } from "../model/common.js";
import type { DlqEntry } from "../model/dlq.js";
import type { LogEntry, LogLevel, NodeRun, Run, RunStatus } from "../model/run.js";
import type { Pipeline, PipelineDefinition, PipelineSummary } from "../model/pipeline.js";
import type { Role } from "../model/user.js";
import type { StreamedEvent, UnsequencedEvent } from "../model/event-types.js";
import type { PipelineVersion } from "../model/version.js";

export type DialectName = "sqlite" | "postgres" | "mysql";

export interface VersionNote {
  version_id: string;
  message: string;
  created_at: string;
}

/** The scheduling fields of one pipeline: what the scheduler needs of it, read without its definition. */
export interface ScheduleRef {
  id: string;
  name: string;
  schedule: string | null;
  schedule_timezone: string | null;
  enabled: boolean;
  depends_on: string[];
  updated_at: string;
}

/** Pipelines and their version snapshots; every write stores the pipeline and its snapshot in one transaction. */
export interface PipelineStore {
  insert(pipeline: Pipeline, version: VersionNote): Promise<void>;
  /** Replaces the stored pipeline; false when it does not exist. */
  update(pipeline: Pipeline, version: VersionNote): Promise<boolean>;
  get(id: string): Promise<Pipeline | null>;
  /** Newest first by creation time. Without a page request, every pipeline. */
  list(page?: PageRequest): Promise<{ items: PipelineSummary[]; total: number }>;
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
  /** Newest first. */
  listVersions(pipelineId: string): Promise<PipelineVersion[]>;
  getVersion(
    pipelineId: string,
    versionId: string,
  ): Promise<{ version: PipelineVersion; snapshot: PipelineDefinition } | null>;
  /** Every pipeline in full (lineage, impact, used-by scans). */
  listFull(): Promise<Pipeline[]>;
  /** id, name and depends_on of every pipeline — what dependency checks need, without their definitions. */
  listDependencyRefs(): Promise<{ id: string; name: string; depends_on: string[] }[]>;
  /** The scheduling fields of every pipeline (ScheduleRef), without their definitions; newest first. */
  listScheduleRefs(): Promise<ScheduleRef[]>;
  /** Existing ids among the given ones. */
  existingIds(ids: readonly string[]): Promise<Set<string>>;
  /**
   * A cheap marker that changes whenever any pipeline is created, updated or deleted, by this instance or another
   * sharing the database (the scheduler leader polls it to pick up changes made elsewhere).
   */
  changeMarker(): Promise<string>;
}

export interface SystemStore {
  /** Bytes the database occupies, measured from the database itself. */
  sizeBytes(): Promise<number>;
  /** Runs currently `running`. */
  activeRunCount(): Promise<number>;
  /** Runs waiting for an execution slot. */
  pendingRunCount(): Promise<number>;
  /**
   * Deletes finished runs created before `cutoffIso` with their node runs, logs, node outputs and DLQ entries, one
   * transaction per batch; returns how many runs were deleted.
   */
  purgeRunsBefore(cutoffIso: string, batchSize?: number): Promise<number>;
}

/** Named leases with expiry, so one instance among several holds a role (e.g. the scheduler). */
export interface LeaseStore {
  /** Takes or renews the lease; true when `owner` holds it afterwards. */
  acquire(name: string, owner: string, ttlMs: number, now: Date): Promise<boolean>;
  release(name: string, owner: string): Promise<void>;
  /** Current unexpired holder, or null. */
  holder(name: string, now: Date): Promise<string | null>;
}

export interface SchedulerState {
  pipeline_id: string;
  last_slot_at: string | null;
  last_sla_date: string | null;
}

export interface SchedulerStateStore {
  get(pipelineId: string): Promise<SchedulerState | null>;
  /**
   * Atomically records `slotIso` as fired and, in the same transaction, inserts `runs` (the slot's run, marked with
   * the slot); false, and nothing inserted, when that slot (or a later one) already was. Retrying after an error is
   * safe: a slot fires once, whichever instance or attempt records it.
   */
  claimSlot(pipelineId: string, slotIso: string, runs?: readonly Run[]): Promise<boolean>;
  /** Atomically records that the SLA miss of local `date` was reported; false when it already was. */
  claimSlaDate(pipelineId: string, date: string): Promise<boolean>;
}

export interface PipelineRunStats {
  pipeline_id: string;
  last_run_status: string | null;
  last_run_at: string | null;
  runs_total: number;
  runs_success: number;
  runs_failed: number;
}

export interface RecentRun extends Run {
  pipeline_name: string | null;
}

export interface SearchHit {
  type: "pipeline" | "connection" | "variable";
  id: string;
  name: string;
  description: string;
}

/** Read-side aggregations over runs and resources, computed by the database. */
export interface InsightStore {
  /** Per pipeline that has runs: latest run status/time and counts. */
  pipelineRunStats(): Promise<PipelineRunStats[]>;
  /** Per pipeline that has runs: when its latest run was created (no counts: one index seek per pipeline). */
  latestRuns(): Promise<{ pipeline_id: string; created_at: string }[]>;
  /** Run counts per UTC date and status since `sinceIso`, of every pipeline or of `pipelineId` only. */
  dailyCounts(sinceIso: string, pipelineId?: string): Promise<{ date: string; status: string; count: number }[]>;
  topFailing(sinceIso: string, limit: number): Promise<{ pipeline_id: string; name: string; fail_count: number }[]>;
  recentRuns(limit: number): Promise<RecentRun[]>;
  /** Case-insensitive substring search; never touches variable values or connection secrets. */
  search(q: string, limit: number): Promise<SearchHit[]>;
}

/** A stored user, with its password hash (never leaves core). */
export interface UserRecord {
  id: string;
  username: string;
  role: Role;
  password_hash: string;
  password_changed_at: string;
  created_at: string;
  updated_at: string;
}

/** Users. Usernames match exactly (case-sensitive) on every dialect. */
export interface UserStore {
  /** False when the username is taken. */
  insert(user: UserRecord): Promise<boolean>;
  getById(id: string): Promise<UserRecord | null>;
  getByUsername(username: string): Promise<UserRecord | null>;
  /** Oldest first. */
  list(): Promise<UserRecord[]>;
  count(): Promise<number>;
  /** False when the user does not exist. */
  updatePassword(id: string, passwordHash: string, changedAt: string): Promise<boolean>;
  /** Deletes a user: only a first user that lost a race with another (no endpoint deletes users). */
  remove(id: string): Promise<void>;
}

/** Failed logins of one username within the current window, and the lock they caused. */
export interface LoginAttempt {
  username: string;
  failures: number;
  first_failure_at: string;
  locked_until: string | null;
}

export interface LoginFailurePolicy {
  /** Now. */
  at: string;
  /** Failures before this instant start a new window. */
  windowStart: string;
  /** Failures (within the window) that lock the username. */
  threshold: number;
  /** locked_until set when the threshold is reached. */
  lockUntil: string;
}

/** Login failures per username, kept in the database so lockouts hold across restarts and instances. */
export interface LoginAttemptStore {
  get(username: string): Promise<LoginAttempt | null>;
  /** Counts one failure atomically and locks the username when the threshold is reached. */
  recordFailure(username: string, policy: LoginFailurePolicy): Promise<LoginAttempt>;
  clear(username: string): Promise<void>;
  /** Deletes rows whose window started before `windowStart` and that hold no lock at `at`; returns how many. */
  prune(windowStart: string, at: string): Promise<number>;
}

/** Webhook trigger state: the per-pipeline rate limit and idempotency keys. */
export interface WebhookStore {
  /** Accepts a trigger when none was accepted for the pipeline within `windowMs`; atomic across instances. */
  claimTrigger(pipelineId: string, now: Date, windowMs: number): Promise<{ accepted: boolean; retryAfterMs: number }>;
  /**
   * Undoes the claim made at `now` (a trigger refused after it: the rate limit counts accepted triggers only), unless
   * a later claim replaced it.
   */
  releaseTrigger(pipelineId: string, now: Date): Promise<void>;
  findRunByIdempotencyKey(
    key: string,
    since: Date,
  ): Promise<{ id: string; pipeline_id: string; status: string } | null>;
  tagRun(runId: string, key: string): Promise<void>;
}

export interface ClaimedRun extends Run {
  owner: string;
  /** Incremented by every claim: the owner's writes hold only while owner and epoch are still the run's. */
  epoch: number;
  /** Whether node runs of an earlier attempt exist (a resumed run): false lets the executor skip reading them. */
  attempted: boolean;
}

/** Persisted node data: `preview` (first 50 rows), `profile`, and `output` (the full DataSet, kept for resume). */
export type NodeOutputKind = "preview" | "profile" | "output";
/**
 * A part of a large output kept for resume: `output:1`, `output:2`, … each hold a JSON list of its rows, written each
 * in a statement of its own before the `output` row that names how many there are (engine/kept-output.ts).
 */
export type KeptOutputPartKind = `output:${number}`;

export interface NodeOutputRecord {
  run_id: string;
  node_id: string;
  kind: NodeOutputKind | KeptOutputPartKind;
  /** The data, written as JSON; or its JSON text made already (a `JsonText`, store/output-data.ts). */
  data: unknown;
}

/** A status change of a run, applied only when the run's status is one of `from` (see `RunStore.transition`). */
export interface RunTransition {
  id: string;
  from: readonly RunStatus[];
  to: RunStatus;
  fields: { error?: string | null; started_at?: string | null; finished_at?: string | null; owner?: string | null };
  /** Applies only while the run is `running` under this claim (its executor's own writes). */
  claim?: RunClaim;
  /**
   * The event that announces the move (`run.completed`, `run.failed`): appended to the event log in the same
   * transaction, after the batch's `events`, if and only if the run moved. Its number follows theirs in `seqs`.
   */
  event?: EventLogEntry;
}

/** Who executes a run: the owner that claimed it, and that claim's epoch. */
export interface RunClaim {
  owner: string;
  epoch: number;
}

/** A streamed event as the event log stores it: without `seq` (the log numbers it), with the process that wrote it. */
export interface EventLogEntry {
  readonly origin: string;
  readonly event: UnsequencedEvent;
  /** `event` as JSON: the log's row, and (with its `seq` added) the text sent to clients. */
  readonly body: string;
}

/**
 * An entry whose JSON is made once, at its first use: by the batch that logs it, after the nodes that emitted it have
 * run, not while they run.
 */
class LoggedEvent implements EventLogEntry {
  private json: string | undefined;
  constructor(
    readonly origin: string,
    readonly event: UnsequencedEvent,
  ) {}

  get body(): string {
    return (this.json ??= JSON.stringify(this.event));
  }
}

/** The entry of `event`, written by `origin` (its JSON made once, when first needed). */
export const eventLogEntry = (origin: string, event: UnsequencedEvent): EventLogEntry => new LoggedEvent(origin, event);

/**
 * A run just queued. With `owner`, it is queued already claimed by that executor, which starts it at once (status
 * `running`, `started_at` set, epoch 1, heartbeat `started_at`): the same as inserting it `pending` and claiming it in
 * the same transaction, without the claim.
 */
export type NewRun = Run & { owner?: string };

/** The epoch of a run queued already claimed: that of a first claim. */
export const CLAIMED_AT_INSERT_EPOCH = 1;

/** What the executor writes in one transaction: new runs, node-run states, log lines, outputs and transitions. */
export interface RunStateBatch {
  /** Runs just queued: inserted first. */
  runs?: readonly NewRun[];
  nodeRuns: readonly NodeRun[];
  logs: readonly LogEntry[];
  outputs: readonly NodeOutputRecord[];
  /** Applied after the rest; the ids of those that moved are returned. */
  transitions?: readonly RunTransition[];
  /** Appended to the event log; their sequence numbers are returned, in order. */
  events?: readonly EventLogEntry[];
  /**
   * The claims under which the executor wrote the node runs, logs, outputs and transitions of these runs. A run
   * whose claim no longer holds (another instance took it over) has all of them dropped and is returned `refused`.
   * Runs not named here are not fenced.
   */
  claims?: ReadonlyMap<string, RunClaim>;
}

/** What a batch did: runs whose transition applied, sequence numbers of its events, runs whose writes were refused. */
export interface RunStateBatchResult {
  moved: string[];
  /** The numbers of `events` (those not refused), then of the events of the transitions that moved, in order. */
  seqs: number[];
  refused: string[];
}

/** Runs, node runs, logs, persisted node outputs and the dead-letter queue (docs/runs.md). */
export interface RunStore {
  insert(runs: readonly NewRun[]): Promise<void>;
  get(id: string): Promise<Run | null>;
  /** Newest first. */
  listForPipeline(
    pipelineId: string,
    page: { page: number; per_page: number },
  ): Promise<{ items: Run[]; total: number }>;
  latest(pipelineId: string): Promise<Run | null>;
  lastSuccessFinishedAt(pipelineId: string): Promise<string | null>;
  /** Atomically moves up to `limit` pending runs (oldest first) to `running` under `owner`. */
  claimPending(owner: string, limit: number, nowIso: string): Promise<ClaimedRun[]>;
  /** Stamps the heartbeat of those runs still `owner`'s (running, or cancelled and finishing); returns their ids. */
  heartbeat(owner: string, runIds: readonly string[], nowIso: string): Promise<string[]>;
  /** Owners of runs currently `running`, with their latest heartbeat. */
  runningOwners(): Promise<{ owner: string | null; heartbeat_at: string | null }[]>;
  /**
   * Marks the `running` runs of the given owners (and their running node runs) `failed` with `error`; returns the
   * runs it moved (of two callers at once, each run goes to one).
   */
  failRunsOfOwners(
    owners: readonly (string | null)[],
    error: string,
    nowIso: string,
    /** Only runs whose heartbeat is older than this (orphans of a live owner). */
    staleBefore?: string,
  ): Promise<Run[]>;
  /**
   * Sets status (and the given fields) when the run's status is one of `from`; false when it was not (so racing
   * writers cannot overwrite a cancel or a finish).
   */
  transition(
    id: string,
    from: readonly RunStatus[],
    to: RunStatus,
    fields?: RunTransition["fields"],
    claim?: RunClaim,
  ): Promise<boolean>;
  /**
   * The executor's batched write, in one transaction: inserts the new runs, upserts node runs (the last state of
   * each), appends logs, upserts outputs, then applies the transitions; returns the ids of the runs whose
   * transition applied.
   */
  writeBatch(batch: RunStateBatch): Promise<RunStateBatchResult>;
  nodeRuns(runId: string): Promise<NodeRun[]>;
  /** The node runs of several runs in one query, each run's in the order `nodeRuns` gives them. */
  nodeRunsOfRuns(runIds: readonly string[]): Promise<NodeRun[]>;
  /** Oldest first. */
  logs(runId: string, filter?: { node_id?: string; level?: LogLevel }): Promise<LogEntry[]>;
  output(runId: string, nodeId: string, kind: NodeOutputKind | KeptOutputPartKind): Promise<unknown>;
  /** Deletes the run's outputs of `kind`, and for `output` its parts (KeptOutputPartKind) too. */
  deleteOutputs(runId: string, kind: NodeOutputKind): Promise<void>;
  insertDlq(entries: readonly DlqEntry[]): Promise<void>;
  /**
   * Newest first, at most `limit`, and no more than fit in `maxPayloadChars` characters of payload JSON (the newest
   * entry is listed whatever its size).
   */
  listDlq(pipelineId: string, includeResolved: boolean, limit: number, maxPayloadChars: number): Promise<DlqEntry[]>;
  /** False when no entry of that pipeline has that id. */
  resolveDlq(pipelineId: string, id: string, nowIso: string): Promise<boolean>;
}

/** A connection row as stored: secrets already encrypted by the vault. */
export interface ConnectionRecord {
  id: string;
  conn_id: string;
  type: string;
  host: string;
  port: number | null;
  schema: string;
  login: string;
  password_enc: string | null;
  extra_enc: string | null;
  created_at: string;
  updated_at: string;
}

export interface ConnectionStore {
  /** False when the conn_id exists. */
  insert(record: ConnectionRecord): Promise<boolean>;
  update(record: ConnectionRecord): Promise<boolean>;
  get(connId: string): Promise<ConnectionRecord | null>;
  /** Ordered by conn_id. */
  list(page?: PageRequest): Promise<{ items: ConnectionRecord[]; total: number }>;
  delete(connId: string): Promise<boolean>;
  /** Any stored encrypted value (startup key check), or null. */
  anyEncrypted(): Promise<string | null>;
}

/** A variable row as stored: `value` is plain for `string`, a vault envelope for `secret`. */
export interface VariableRecord {
  key: string;
  type: "string" | "secret";
  value: string;
  created_at: string;
  updated_at: string;
}

export interface VariableStore {
  /** Inserts or replaces; true when it was created. */
  upsert(record: VariableRecord): Promise<boolean>;
  get(key: string): Promise<VariableRecord | null>;
  list(page?: PageRequest): Promise<{ items: VariableRecord[]; total: number }>;
  delete(key: string): Promise<boolean>;
  anySecret(): Promise<string | null>;
}

/** The storage port: one implementation per backend, the same contract for all (see test/store-contract). */
/**
 * The log of streamed events shared by every instance on the database: what a WebSocket client replays with
 * `since`, and how events executed on one instance reach clients of the others (docs/events.md).
 */
export interface EventLogStore {
  /** Appends on their own (outside a run-state batch); their sequence numbers, in order. */
  append(entries: readonly EventLogEntry[]): Promise<number[]>;
  /** Events with `seq > after` not written by `origin`, oldest first, at most `limit`. */
  after(after: number, origin: string, limit: number): Promise<StreamedEvent[]>;
  /** A run's events with `seq > since`, oldest first; at most `limit` when given. */
  ofRun(runId: string, since: number, limit?: number): Promise<StreamedEvent[]>;
  /** The highest sequence number handed out so far (0 for none). */
  lastSeq(): Promise<number>;
  /** Deletes events written before `beforeIso`; how many. */
  prune(beforeIso: string): Promise<number>;
  /**
   * Calls `wake` when another process appended events (PostgreSQL: LISTEN); reconnects by itself. Absent where the
   * log must be polled (MySQL) or only one process writes it (SQLite).
   */
  watch?(origin: string, wake: () => void, onError: (e: unknown) => void): Promise<{ close(): Promise<void> }>;
}

export interface Store {
  readonly dialect: DialectName;
  /** For a file database, the path of the file; null for server databases. */
  readonly filePath: string | null;
  readonly pipelines: PipelineStore;
  readonly runs: RunStore;
  readonly system: SystemStore;
  readonly insights: InsightStore;
  readonly leases: LeaseStore;
  readonly webhooks: WebhookStore;
  readonly schedulerState: SchedulerStateStore;
  readonly users: UserStore;
  readonly connections: ConnectionStore;
  readonly variables: VariableStore;
  readonly loginAttempts: LoginAttemptStore;
  readonly eventLog: EventLogStore;
  close(): Promise<void>;
}
