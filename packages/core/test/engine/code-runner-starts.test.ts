import { setImmediate as nextTurn } from "node:timers/promises";
import { afterAll, describe, expect, it, vi } from "vitest";
import { CodeRunnerPool } from "../../src/sandbox/code-runner-pool.js";

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
afterAll(async () => {
  counting = false;
  await pool.close();
});

const job = (code: string) => ({
  code,
  params: {},
  inputs: [],
  timeoutMs: 20_000,
  memoryMb: 64,
  maxLogLines: 10,
  maxOutputRows: 1000,
  maxOutputChars: 1_000_000,
});
const options = () => ({ signal: new AbortController().signal, log: () => undefined });

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
      Array.from({ length: RUNNERS }, (_, i) => pool.run(job(`return [{ job: ${i} }];`), [], options())),
    );
    expect(outputs.map((o) => o.rows)).toEqual(Array.from({ length: RUNNERS }, (_, i) => [{ job: i }]));
    expect(started).toHaveLength(RUNNERS);
    expect(new Set(started).size).toBe(RUNNERS);
  }, 60_000);
});
