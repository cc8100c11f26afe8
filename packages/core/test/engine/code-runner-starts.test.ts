import { setImmediate as nextTurn } from "node:timers/promises";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SluiceError } from "../../src/errors.js";
import { CodeRunnerPool } from "../../src/sandbox/code-runner-pool.js";
import { codeJob, codeRunOptions } from "./code-job.js";

const RUNNERS = 6;
const pool = new CodeRunnerPool({ warm: 0, max: RUNNERS });

/** The turn of the event loop each runner was started in (the pool's real `spawn`, watched). */
let turn = 0;
let counting = true;
void (async () => {
  while (counting) {
    await nextTurn();
    turn++;
  }
})();
/** Pools of the tests below, closed at the end. */
const pools: CodeRunnerPool[] = [pool];
afterAll(async () => {
  counting = false;
  await Promise.all(pools.map((p) => p.close()));
});

/*
 * Starting a process holds the starting thread for 1–25 ms on a two-core machine, more while the processes started
 * just before it boot: a wave of `code` nodes started their runners in one turn of the event loop, in which the server
 * answered no one. They start one a turn, the server's other work between them.
 */
describe("code runners started for jobs at once", () => {
  it("start one a turn of the event loop", async () => {
    const started: number[] = [];
    const spawning = pool as unknown as { spawn(): unknown };
    const spawn = spawning.spawn.bind(pool);
    vi.spyOn(spawning, "spawn").mockImplementation(() => {
      started.push(turn);
      return spawn();
    });
    const outputs = await Promise.all(
      Array.from({ length: RUNNERS }, (_, i) => pool.run(codeJob(`return [{ job: ${i} }];`), [], codeRunOptions())),
    );
    expect(outputs.map((o) => o.rows)).toEqual(Array.from({ length: RUNNERS }, (_, i) => [{ job: i }]));
    expect(started).toHaveLength(RUNNERS);
    expect(new Set(started).size).toBe(RUNNERS);
  }, 60_000);
});

/* Found by a helper's review of the change above: a start now waits for turns, behind other starts. */
describe("a code runner start that waits its turn", () => {
  it("does not run a job cancelled meanwhile", async () => {
    const small = new CodeRunnerPool({ warm: 0, max: 4 });
    pools.push(small);
    const cancel = new AbortController();
    const slow = (i: number) => codeJob(`await new Promise((r) => setTimeout(r, 1000)); return [{ job: ${i} }];`);
    const jobs = [0, 1, 2].map((i) => small.run(slow(i), [], codeRunOptions()));
    const cancelled = small.run(slow(3), [], { signal: cancel.signal, log: () => undefined });
    await nextTurn();
    cancel.abort();
    await expect(cancelled).rejects.toThrow(/cancelled/);
    expect((await Promise.all(jobs)).map((o) => o.rows)).toEqual([[{ job: 0 }], [{ job: 1 }], [{ job: 2 }]]);
  }, 30_000);

  it("that fails fails the jobs waiting for a place too, rather than leaving them waiting", async () => {
    const full = new CodeRunnerPool({ warm: 0, max: 2 });
    pools.push(full);
    vi.spyOn(full as unknown as { spawn(): unknown }, "spawn").mockImplementation(() => {
      throw new SluiceError("internal", "the code runner script is missing from the installation");
    });
    const outcomes = await Promise.allSettled(
      [0, 1, 2].map((i) => full.run(codeJob(`return [{ job: ${i} }];`), [], codeRunOptions())),
    );
    expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "ran"))).toEqual(
      Array(3).fill(expect.stringMatching(/missing from the installation/)),
    );
  }, 30_000);
});
