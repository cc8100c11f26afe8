/**
 * Which sequence numbers of the shared event log a process has seen. Numbers are handed out when rows are inserted
 * but become visible when their transaction commits, so a reader can see 12 before 11: 11 is then a gap, waited for
 * up to `settleMs` (a rolled-back transaction leaves a gap for ever; 10 s is as long as PostgreSQL lets a session
 * idle in a transaction). `floor` is the number below which nothing more
 * is expected: a reader asks for rows after it and skips those `see` says it has had.
 */
export class EventLogCursor {
  /** Every number up to here has been seen or given up on. */
  floor: number;
  private max: number;
  private readonly seen = new Set<number>();
  private readonly missingSince = new Map<number, number>();

  constructor(
    start: number,
    private readonly settleMs = 10_000,
  ) {
    this.floor = start;
    this.max = start;
  }

  /** Records `seq`; false when it was seen (or given up on) before. */
  see(seq: number): boolean {
    if (seq <= this.floor || this.seen.has(seq)) return false;
    this.seen.add(seq);
    if (seq > this.max) this.max = seq;
    return true;
  }

  /** Moves `floor` over what has been seen, and over gaps older than `settleMs`. */
  advance(nowMs: number): void {
    while (this.floor < this.max) {
      const next = this.floor + 1;
      if (!this.seen.delete(next)) {
        let since = this.missingSince.get(next);
        if (since === undefined) {
          since = nowMs;
          this.missingSince.set(next, nowMs);
        }
        if (nowMs - since < this.settleMs) return;
      }
      this.missingSince.delete(next);
      this.floor = next;
    }
  }
}
