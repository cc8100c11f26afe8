import { setImmediate as nextTurn } from "node:timers/promises";

/** The last start asked for: each waits for the one before it, then for a turn of the event loop of its own. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * `start()` in a turn of the event loop of its own, after every start asked for before it, so that starts asked for
 * at once hold the server's thread one at a time, with its other work between them. For what holds the thread long
 * and cannot be split: starting a process holds it for 1–25 ms on a two-core machine, more while the processes started
 * just before it boot, and 16 `sql` nodes of one wave started 16 processes in one turn, 0.1–0.2 s in which the server
 * answered no one (found by a helper's sweep).
 */
export function oneATurn<T>(start: () => T): Promise<T> {
  const started = queue.then(() => nextTurn()).then(start);
  queue = started.catch(() => undefined);
  return started;
}
