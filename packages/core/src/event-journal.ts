import type { SluiceEvents } from "./events.js";
import type { SluiceEventMap } from "./model/event.js";
import { isTerminalEventType, STREAMED_EVENT_TYPES, type StreamedEvent } from "./model/event-types.js";

/**
 * Numbers every streamed event and keeps the recent ones per run, so a client that reconnects can ask for a run's
 * events after the last sequence number it saw and never miss a terminal status. Bounded: at most `perRun` events
 * per run (the terminal event is always kept) and `maxRuns` runs.
 */
export class EventJournal {
  private seq = 0;
  private readonly byRun = new Map<string, StreamedEvent[]>();
  private readonly listeners = new Set<(e: StreamedEvent) => void>();
  private readonly unsubscribers: (() => void)[] = [];

  constructor(
    private readonly events: SluiceEvents,
    private readonly limits: { perRun: number; maxRuns: number } = { perRun: 2000, maxRuns: 500 },
  ) {}

  start(): void {
    for (const type of STREAMED_EVENT_TYPES) {
      const fn = (payload: SluiceEventMap[typeof type]) =>
        this.record({ ...payload, type, seq: ++this.seq } as StreamedEvent);
      this.events.on(type, fn as never);
      this.unsubscribers.push(() => this.events.off(type, fn as never));
    }
  }

  stop(): void {
    for (const off of this.unsubscribers.splice(0)) off();
    this.listeners.clear();
  }

  /** The latest sequence number handed out. */
  get lastSeq(): number {
    return this.seq;
  }

  subscribe(listener: (e: StreamedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Buffered events of a run with `seq > since`, in order. */
  since(runId: string, since: number): StreamedEvent[] {
    return (this.byRun.get(runId) ?? []).filter((e) => e.seq > since);
  }

  private record(event: StreamedEvent): void {
    let list = this.byRun.get(event.run_id);
    if (!list) {
      list = [];
      this.byRun.set(event.run_id, list);
      if (this.byRun.size > this.limits.maxRuns) {
        const oldest = this.byRun.keys().next().value;
        if (oldest !== undefined) this.byRun.delete(oldest);
      }
    }
    list.push(event);
    if (list.length > this.limits.perRun) {
      const dropAt = list.findIndex((e) => !isTerminalEventType(e.type));
      list.splice(dropAt === -1 ? 0 : dropAt, 1);
    }
    for (const listener of this.listeners) listener(event);
  }
}
