import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Longest the server's thread is held, between two turns of its event loop, by work over a node's rows that runs on
 * it (docs/nodes.md#many-rows says which). The loop's other work waits about that long at most: requests, other
 * runs, the node's own timeout and a cancel, which end the work between two slices. Measured with the thread's own
 * clock (`performance.now`), not the service's clock: it is the work's time, not the day's.
 */
export const SLICE_MS = 10;

/**
 * Values (rows × columns) a data set may have for work over it to be done in one go, without a look at the clock:
 * what a short chain of small nodes handles, which slices would only slow down.
 */
const AT_ONCE_VALUES = 4096;

/** Whether work over `rows` rows of `columns` columns is small enough to do in one go (AT_ONCE_VALUES). */
export const fitsOneGo = (rows: number, columns: number) => rows * Math.max(columns, 1) <= AT_ONCE_VALUES;

/**
 * Items of the first piece of `Slices.each`, and the most of any piece. One: what an item costs is not known before
 * it is done (16 rows of 60,000 columns held the thread for a second), and pieces grow fourfold from there.
 */
const FIRST_PIECE = 1;
const MOST_PIECE = 4096;

/**
 * Work over rows in slices of about SLICE_MS: `due()` after each piece of work, and `await next()` when it says so;
 * or `each`, which sizes the pieces itself. Work that fits in one slice never waits.
 */
export class Slices {
  private start = performance.now();

  /** `signal`: the node's (its timeout, a cancel); `next()` throws its reason once it is aborted. */
  constructor(private readonly signal?: AbortSignal) {}

  /** Whether this slice is used up. */
  due(): boolean {
    return performance.now() - this.start > SLICE_MS;
  }

  /** A turn of the event loop for everything else; then the signal is looked at, and a new slice begins. */
  async next(): Promise<void> {
    await nextTurn();
    this.signal?.throwIfAborted();
    this.start = performance.now();
  }

  /**
   * `work(from, to)` over the items `0 … count - 1` in pieces, with a turn of the event loop whenever a slice is used
   * up. A piece is sized by the time the one before it took, to about a tenth of a slice: what an item costs is not
   * known before (a row of 1,500 columns costs a thousand times one of 5), so the first piece is small.
   */
  async each(count: number, work: (from: number, to: number) => void): Promise<void> {
    let size = FIRST_PIECE;
    for (let from = 0; from < count;) {
      const to = Math.min(from + size, count);
      const began = performance.now();
      work(from, to);
      const took = performance.now() - began;
      const fits = took > 0 ? Math.floor((size * SLICE_MS) / 10 / took) : MOST_PIECE;
      size = Math.max(1, Math.min(fits, size * 4, MOST_PIECE));
      from = to;
      if (this.due()) await this.next();
    }
  }

  /** `fn` for each item of `items`, in order, in pieces sized by `each`. */
  eachOf<T>(items: readonly T[], fn: (item: T, i: number) => void): Promise<void> {
    return this.each(items.length, (from, to) => {
      for (let i = from; i < to; i++) fn(items[i]!, i);
    });
  }
}
