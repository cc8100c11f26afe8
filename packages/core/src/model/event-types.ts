import type { SluiceEventMap, SluiceEventType } from "./event.js";

// Which events reach WebSocket clients and which statuses and events end a run (docs/events.md). Plain data without
// zod: the client bundles this file (`@sluice/core/event-types`) to follow a run's stream.

/** The statuses a run ends in; a run in one of them never changes again. */
export const TERMINAL_RUN_STATUSES = ["success", "failed", "cancelled"] as const;
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];

/** The events streamed to WebSocket clients, in the order a run emits them. */
export const STREAMED_EVENT_TYPES = [
  "run.created",
  "run.started",
  "run.completed",
  "run.failed",
  "run.cancelled",
  "node.started",
  "node.completed",
  "node.failed",
  "node.retrying",
  "node.skipped",
  "log",
] as const satisfies readonly SluiceEventType[];
export type StreamedEventType = (typeof STREAMED_EVENT_TYPES)[number];

/** The event that announces each way a run ends. */
export const RUN_END_EVENTS = {
  success: "run.completed",
  failed: "run.failed",
  cancelled: "run.cancelled",
} as const satisfies Record<TerminalRunStatus, StreamedEventType>;
export type TerminalEventType = (typeof RUN_END_EVENTS)[TerminalRunStatus];

/** The events after which a run has nothing more to stream. */
export const TERMINAL_EVENT_TYPES: readonly TerminalEventType[] = TERMINAL_RUN_STATUSES.map((s) => RUN_END_EVENTS[s]);

/** A streamed event: its type, a process-wide increasing sequence number, and the event's fields. */
export type StreamedEvent = {
  [K in StreamedEventType]: { type: K; seq: number } & SluiceEventMap[K];
}[StreamedEventType];

/** A streamed event before the event log has numbered it. */
export type UnsequencedEvent = StreamedEvent extends infer E
  ? E extends StreamedEvent
    ? Omit<E, "seq">
    : never
  : never;

export const isTerminalRunStatus = (status: string): status is TerminalRunStatus =>
  (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);

export const isStreamedEventType = (type: string): type is StreamedEventType =>
  (STREAMED_EVENT_TYPES as readonly string[]).includes(type);

export const isTerminalEventType = (type: string): type is TerminalEventType =>
  (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
