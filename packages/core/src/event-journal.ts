import { withValue, type Row } from "./engine/dataset.js";
import type { WriteBuffer } from "./engine/write-buffer.js";
import { EventLogCursor } from "./event-log-cursor.js";
import { loggedSeqOf, type SluiceEvents } from "./events.js";
import type { Logger } from "./logger.js";
import type { SluiceEventMap } from "./model/event.js";
import { STREAMED_EVENT_TYPES, type StreamedEvent, type UnsequencedEvent } from "./model/event-types.js";
import { eventLogEntry, type EventLogEntry, type EventLogStore } from "./store/ports.js";

/** `event` with its number: a copy, `seq` its last key. */
const numbered = (event: UnsequencedEvent, seq: number): StreamedEvent =>
  withValue(event as object as Row, "seq", seq) as unknown as StreamedEvent;

/** Events older than this are deleted from the log (replay is for reconnecting clients; runs keep their state). */
export const EVENT_RETENTION_MS = 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60_000;
/** How often the log is read for other instances' events where nothing wakes the reader (MySQL). */
const POLL_MS = 500;
/** Where notifications wake the reader (PostgreSQL), it still reads this often, for a notification lost. */
const WATCHED_POLL_MS = 5000;
/** Rows per read of other instances' events. */
const PAGE = 1000;

/** The reading of other instances' events, while someone listens. */
interface Relay {
  cursor: EventLogCursor;
  watch: { close(): Promise<void> } | null;
  timer: NodeJS.Timeout | null;
}

export interface EventJournalDeps {
  events: SluiceEvents;
  /** The group commit the events are written with (in the same transaction as the run state they describe). */
  writes: WriteBuffer;
  log: EventLogStore;
  /** This process's executor owner id: its own events are delivered at commit, not read back. */
  origin: string;
  /**
   * Whether other processes write the log too (PostgreSQL, MySQL): then, while anyone subscribes, their events are
   * read and delivered as well.
   */
  shared: boolean;
  logger: Logger;
}

/**
 * The streamed events of every instance on the database (docs/events.md). Events of this process are appended to
 * the shared event log in the group commit of the run state they describe, and delivered to subscribers once
 * committed, numbered by the log (`seq`, one sequence for all instances). Where other instances write the log too,
 * their events are read from it (woken by PostgreSQL notifications, or polled on MySQL) and delivered as well, so a
 * client of any instance sees every run. The log is what `since` replays, whichever instance a client reconnects to.
 */
export class EventJournal {
  private seq = 0;
  private readonly listeners = new Set<(e: StreamedEvent) => void>();
  private readonly unsubscribers: (() => void)[] = [];
  private pruning: NodeJS.Timeout | null = null;
  private pruneRunning = false;
  /** Where other instances' events are read up to; set while the relay runs. */
  private cursor: EventLogCursor | null = null;
  private relay: Promise<Relay | null> | null = null;
  private reading = false;
  private readAgain = false;
  private stopped = false;
  /** The text of each event delivered (`textOf`). */
  private readonly texts = new WeakMap<StreamedEvent, string>();

  constructor(private readonly deps: EventJournalDeps) {}

  async start(): Promise<void> {
    this.seq = await this.deps.log.lastSeq();
    for (const type of STREAMED_EVENT_TYPES) {
      const fn = (payload: SluiceEventMap[typeof type]) => {
        // copied key by key, not `{ ...payload, type }`: V8 makes a spread copy given a new key a slow dictionary
        const event = withValue(payload as object as Row, "type", type) as unknown as UnsequencedEvent;
        // a run's end is logged in the transaction that ended the run (RunTransition event): delivered, not logged
        const logged = loggedSeqOf(payload as object);
        if (logged !== undefined) return this.deliver(numbered(event, logged), true);
        const entry = eventLogEntry(this.deps.origin, event);
        this.deps.writes.event(entry, (seq) => this.deliver(this.sequenced(entry, seq), true));
      };
      this.deps.events.on(type, fn as never);
      this.unsubscribers.push(() => this.deps.events.off(type, fn as never));
    }
    this.pruning = this.every(PRUNE_EVERY_MS, () => this.prune());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.unsubscribers.splice(0)) off();
    if (this.pruning) clearInterval(this.pruning);
    this.listeners.clear();
    await this.stopRelay();
  }

  /**
   * The text of `event` for clients (its JSON). Every subscriber is handed the same event object, so it is made once
   * for them all; for an event of this process, from the JSON the log stored.
   */
  textOf(event: StreamedEvent): string {
    let text = this.texts.get(event);
    if (text === undefined) {
      text = JSON.stringify(event);
      this.texts.set(event, text);
    }
    return text;
  }

  /**
   * `entry`'s event numbered `seq`, and its text: the JSON the log stored with `seq` added last, where JSON.stringify
   * puts a new key (an event that has a `seq` of its own, which none of Sluice's has, is left to `textOf`).
   */
  private sequenced(entry: EventLogEntry, seq: number): StreamedEvent {
    const event = numbered(entry.event, seq);
    if (!Object.hasOwn(entry.event, "seq")) this.texts.set(event, `${entry.body.slice(0, -1)},"seq":${seq}}`);
    return event;
  }

  /** The latest sequence number delivered. */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Delivers every event from now on. Other instances' events are read from the log only while someone listens:
   * an instance without clients spends nothing on them.
   */
  subscribe(listener: (e: StreamedEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.deps.shared && !this.relay && !this.stopped) {
      this.relay = this.startRelay().catch((e: unknown) => {
        this.deps.logger.warn(`event log: cannot read other instances' events: ${(e as Error).message}`);
        this.relay = null;
        return null;
      });
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) void this.stopRelay();
    };
  }

  /** Reads other instances' events from the current end of the log on: woken by notifications, or polled. */
  private async startRelay(): Promise<Relay> {
    const relay: Relay = { cursor: new EventLogCursor(await this.deps.log.lastSeq()), watch: null, timer: null };
    this.cursor = relay.cursor;
    const { watch } = this.deps.log;
    if (watch) {
      relay.watch = await watch(
        this.deps.origin,
        () => this.read(),
        (e) => this.deps.logger.warn(`event log: listening failed, reconnecting: ${(e as Error).message}`),
      );
    }
    relay.timer = this.every(relay.watch ? WATCHED_POLL_MS : POLL_MS, () => this.read());
    return relay;
  }

  private async stopRelay(): Promise<void> {
    const relay = this.relay;
    this.relay = null;
    if (!relay) return;
    const started = await relay;
    if (!started) return;
    if (this.cursor === started.cursor) this.cursor = null;
    if (started.timer) clearInterval(started.timer);
    await started.watch?.close();
  }

  /**
   * A run's events with `seq > since`, oldest first, from the shared log (whichever instance executed it); at most
   * `limit` when given.
   */
  since(runId: string, since: number, limit?: number): Promise<StreamedEvent[]> {
    return this.deps.log.ofRun(runId, since, limit);
  }

  /** Whether the shared log still holds any event of the run (events older than its retention are deleted). */
  async holds(runId: string): Promise<boolean> {
    return (await this.deps.log.ofRun(runId, 0, 1)).length > 0;
  }

  /**
   * To every subscriber. An event read from the log is delivered once (the cursor knows what was read); one of this
   * process is delivered at its commit whatever the cursor thinks (the reader never reads this process's events).
   */
  private deliver(event: StreamedEvent, own = false): void {
    const fresh = this.cursor?.see(event.seq) ?? true;
    if (!fresh && !own) return;
    if (event.seq > this.seq) this.seq = event.seq;
    for (const listener of this.listeners) listener(event);
  }

  /** Reads and delivers other instances' new events; one read at a time, another right after if woken meanwhile. */
  private read(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    void (async () => {
      try {
        do {
          this.readAgain = false;
          await this.readPages();
        } while (this.readAgain && !this.stopped);
      } catch (e) {
        this.deps.logger.warn(`event log: reading other instances' events failed: ${(e as Error).message}`);
      } finally {
        this.reading = false;
      }
    })();
  }

  private async readPages(): Promise<void> {
    const cursor = this.cursor;
    if (!cursor) return;
    let after = cursor.floor;
    for (;;) {
      const page = await this.deps.log.after(after, this.deps.origin, PAGE);
      for (const event of page) this.deliver(event);
      if (page.length < PAGE || this.stopped) break;
      after = page[page.length - 1]!.seq;
    }
    cursor.advance(Date.now());
  }

  private async prune(): Promise<void> {
    // a prune slower than the interval (a large log) is not joined by the next one
    if (this.pruneRunning) return;
    this.pruneRunning = true;
    try {
      await this.deps.log.prune(new Date(Date.now() - EVENT_RETENTION_MS).toISOString());
    } finally {
      this.pruneRunning = false;
    }
  }

  private every(ms: number, fn: () => unknown): NodeJS.Timeout {
    const t = setInterval(() => {
      Promise.resolve()
        .then(fn)
        .catch((e: unknown) => this.deps.logger.warn(`event log: ${(e as Error).message}`));
    }, ms);
    t.unref();
    return t;
  }
}
