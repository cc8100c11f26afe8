import type { LogLevel, NodeRunStatus, RunStatus } from "./run.js";

interface RunEventBase {
  run_id: string;
  pipeline_id: string;
  timestamp: string;
}

interface NodeEventBase extends RunEventBase {
  node_id: string;
}

/** Every event of the bus, keyed by its `type` (docs/events.md). */
export interface SluiceEventMap {
  /** A run was queued (status `pending`). */
  "run.created": RunEventBase & { status: RunStatus };
  /** A run was claimed by an executor and began. */
  "run.started": RunEventBase & { status: RunStatus };
  /** Every node succeeded or was skipped. */
  "run.completed": RunEventBase & { status: RunStatus; duration_ms?: number };
  /** One or more nodes failed, or the run was interrupted. */
  "run.failed": RunEventBase & { status: RunStatus; error?: string; duration_ms?: number };
  /** A user cancelled the run. */
  "run.cancelled": RunEventBase & { status: RunStatus };
  "node.started": NodeEventBase & { status: NodeRunStatus };
  "node.completed": NodeEventBase & { status: NodeRunStatus; row_count: number; duration_ms: number };
  "node.failed": NodeEventBase & { status: NodeRunStatus; error: string; duration_ms: number };
  "node.retrying": NodeEventBase & { status: NodeRunStatus; error: string; attempt: number };
  "node.skipped": NodeEventBase & { status: NodeRunStatus };
  /** A run log line. */
  log: RunEventBase & { node_id?: string | null; level: LogLevel; message: string };
  /** A scheduled slot did not run (a dependency's latest run is not `success`, or the catch-up window passed). */
  "schedule.skipped": { pipeline_id: string; slot: string; reason: string; blocked_by?: string[]; timestamp: string };
  /** No successful run finished by the pipeline's SLA deadline of `date` (local date in `sla_timezone`). */
  "sla.missed": { pipeline_id: string; pipeline_name: string; date: string; deadline: string; timestamp: string };
  /** A pipeline was created, updated or deleted (drives schedule registration). */
  "pipeline.changed": { pipeline_id: string; action: "created" | "updated" | "deleted"; timestamp: string };
}

export type SluiceEventType = keyof SluiceEventMap;
export type SluiceEvent = { [K in SluiceEventType]: { type: K } & SluiceEventMap[K] }[SluiceEventType];
