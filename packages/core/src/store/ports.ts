import type { PageRequest } from "../model/common.js";
import type { Pipeline, PipelineDefinition, PipelineSummary } from "../model/pipeline.js";
import type { Role } from "../model/user.js";
import type { PipelineVersion } from "../model/version.js";

export type DialectName = "sqlite" | "postgres" | "mysql";

export interface VersionNote {
  version_id: string;
  message: string;
  created_at: string;
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
  getVersion(pipelineId: string, versionId: string): Promise<{ version: PipelineVersion; snapshot: PipelineDefinition } | null>;
  /** id, name and depends_on of every pipeline — what dependency checks need, without node bodies. */
  listDependencyRefs(): Promise<{ id: string; name: string; depends_on: string[] }[]>;
  /** Existing ids among the given ones. */
  existingIds(ids: readonly string[]): Promise<Set<string>>;
}

export interface SystemStore {
  /** Bytes the database occupies, measured from the database itself. */
  sizeBytes(): Promise<number>;
  /** Runs currently `running`. */
  activeRunCount(): Promise<number>;
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

/** The storage port: one implementation per backend, the same contract for all (see test/store-contract). */
export interface Store {
  readonly dialect: DialectName;
  /** For a file database, the path of the file; null for server databases. */
  readonly filePath: string | null;
  readonly pipelines: PipelineStore;
  readonly system: SystemStore;
  readonly users: UserStore;
  readonly loginAttempts: LoginAttemptStore;
  close(): Promise<void>;
}
