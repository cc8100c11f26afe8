import type { Row } from "./dataset.js";

/**
 * Longest the server's thread is held, between two turns of its event loop, by work over a node's rows that runs on
 * it (`transform`'s rules, `quality`'s patterns, a node's profile). The loop's other work waits that long at most:
 * requests, other runs, the node's own timeout and a cancel, which end the work between two slices.
 */
export const SLICE_MS = 10;

/**
 * Work over rows in slices of at most about SLICE_MS: `due()` after each piece of work, and `await next()` when it
 * says so. Work that fits in one slice never waits: a few rows cost one look at the clock.
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
    await new Promise((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
    this.start = performance.now();
  }
}

/** `fn` for each row, in slices (Slices). */
export async function eachRowInSlices(rows: Row[], signal: AbortSignal, fn: (row: Row, i: number) => void) {
  const slices = new Slices(signal);
  for (let i = 0; i < rows.length; i++) {
    fn(rows[i]!, i);
    if (slices.due()) await slices.next();
  }
}
