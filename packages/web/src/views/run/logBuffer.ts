import type { LogEntry } from "@sluice/client";

/** One drawn row of the log: a message with line breaks takes one row per line (rows have one fixed height). */
export interface LogRow {
  entry: LogEntry;
  /** 0 for the first line of the message, 1… for its continuation lines. */
  part: number;
  text: string;
}

/** Identity of a log line: live lines and the fetched list carry no id, so equal fields mean the same line. */
export function logKey(e: LogEntry): string {
  return `${e.timestamp}\u0000${e.node_id ?? ""}\u0000${e.level}\u0000${e.message}`;
}

export type RowFilter = (entry: LogEntry) => boolean;

/**
 * A run's log as it grows. The fetched list comes first; live lines are appended. A live line that is already in the
 * fetched list (it arrived while the list was loading, or the list was fetched again after a reconnect) is dropped:
 * each fetched line absorbs one live line with the same key. Appending costs the size of the batch, not of the log,
 * and so does a filtered view (it filters only the rows added since it was last asked), so 100k lines stay cheap.
 */
export class LogBuffer {
  rows: LogRow[] = [];
  entryCount = 0;
  readonly levels = new Map<string, number>();
  readonly nodes = new Set<string>();
  loaded = false;
  private version = 0;
  private remaining = new Map<string, number>();
  private live: LogEntry[] = [];
  private listeners = new Set<() => void>();
  private view: { key: string; rows: LogRow[]; done: number; out: LogRow[] } | null = null;

  /** The fetched list (again): rebuild from it, then replay the live lines it does not hold. */
  reset(fetched: readonly LogEntry[]): void {
    this.rows = [];
    this.entryCount = 0;
    this.levels.clear();
    this.nodes.clear();
    this.remaining = new Map();
    this.view = null;
    for (const e of fetched) {
      const k = logKey(e);
      this.remaining.set(k, (this.remaining.get(k) ?? 0) + 1);
      this.add(e);
    }
    this.loaded = true;
    for (const e of this.live) this.absorbOrAdd(e);
    this.changed();
  }

  append(batch: readonly LogEntry[]): void {
    for (const e of batch) {
      this.live.push(e);
      if (this.loaded) this.absorbOrAdd(e);
    }
    if (this.loaded) this.changed();
  }

  /** The rows that pass `filter` (`key` names the filter; the same key must mean the same filter). */
  filtered(key: string, filter: RowFilter | null): LogRow[] {
    if (!filter) return this.rows;
    let v = this.view;
    if (!v || v.key !== key || v.rows !== this.rows) v = this.view = { key, rows: this.rows, done: 0, out: [] };
    for (; v.done < this.rows.length; v.done++) {
      const row = this.rows[v.done]!;
      if (filter(row.entry)) v.out.push(row);
    }
    return v.out;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  private absorbOrAdd(e: LogEntry): void {
    const k = logKey(e);
    const left = this.remaining.get(k) ?? 0;
    if (left > 0) {
      if (left === 1) this.remaining.delete(k);
      else this.remaining.set(k, left - 1);
    } else this.add(e);
  }

  private add(e: LogEntry): void {
    this.entryCount++;
    this.levels.set(e.level, (this.levels.get(e.level) ?? 0) + 1);
    if (e.node_id) this.nodes.add(e.node_id);
    const message = e.message ?? "";
    if (!message.includes("\n")) {
      this.rows.push({ entry: e, part: 0, text: message });
      return;
    }
    message
      .replace(/\r?\n$/, "")
      .split(/\r?\n/)
      .forEach((text, part) => this.rows.push({ entry: e, part, text }));
  }

  private changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }
}
