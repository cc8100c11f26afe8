import { expect } from "vitest";

/**
 * What `work` costs the event loop: the longest time between two turns of it while `work` ran (measured by a chain of
 * `setImmediate`, which runs once a turn), against the whole time `work` took. Work done in one go is one long hold,
 * as long as the whole; work in slices gives a turn every few milliseconds.
 */
export async function holdOf<T>(
  work: () => Promise<T>,
): Promise<{ result: T; longest: number; total: number; turns: number }> {
  let last = performance.now();
  let longest = 0;
  let turns = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const began = performance.now();
  const result = await work();
  const total = performance.now() - began;
  running = false;
  longest = Math.max(longest, performance.now() - last);
  return { result, longest, total, turns };
}

/**
 * The whole node takes a few hundred milliseconds here: it must not hold the loop for half of that. A ratio, not a
 * time, so that the machine's speed cancels out; work done in one go holds the loop for all of it (the inputs are
 * made so), work in slices for about 10 ms at a time, and half leaves room for a garbage collection or the machine
 * taking the thread away for a while.
 */
export function expectSliced(hold: { longest: number; total: number; turns: number }) {
  expect(hold.turns).toBeGreaterThan(4);
  expect(hold.longest).toBeLessThan(hold.total / 2);
}
