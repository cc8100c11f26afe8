/**
 * Found by a helper (2026-11-27): when no code runner could be started (the installation was rebuilt under a running
 * server), the runner that failed a job was not replaced, yet its place stayed taken and the jobs waiting for it were
 * never answered. Every later `code` node then waited out its timeout (default 30 minutes), until a restart.
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import { SluiceError } from "../../src/errors.js";
import { CodeRunnerPool } from "../../src/sandbox/code-runner-pool.js";
import { codeJob, codeRunOptions } from "./code-job.js";

const pool = new CodeRunnerPool({ warm: 0, max: 1 });
afterAll(() => pool.close());

describe("a code runner pool that cannot start a runner", () => {
  it("fails the jobs waiting for one at once, and serves jobs again once runners start", async () => {
    // `a` holds the only runner, then fails: its runner is killed and a new one must be started for `b`
    let aRunning: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (aRunning = resolve));
    const a = pool.run(
      codeJob("console.log('a runs'); await new Promise((r) => setTimeout(r, 300)); throw new Error('a failed');"),
      [],
      { ...codeRunOptions(), log: aRunning },
    );
    const b = pool.run(codeJob("return [{ b: 1 }];"), [], codeRunOptions());
    await running; // `a` has its runner (started in a turn of its own): only the next start fails
    const spawn = vi.spyOn(pool as unknown as { spawn(): unknown }, "spawn").mockImplementation(() => {
      throw new SluiceError("internal", "the code runner script is missing from the installation");
    });
    await expect(a).rejects.toThrow(/a failed/);
    const started = performance.now();
    await expect(b).rejects.toThrow(/missing from the installation/);
    expect(performance.now() - started).toBeLessThan(5_000);
    spawn.mockRestore();
    // the place `a` held is free again
    await expect(pool.run(codeJob("return [{ c: 1 }];"), [], codeRunOptions())).resolves.toMatchObject({
      rows: [{ c: 1 }],
    });
  });
});
