import { spawn } from "node:child_process";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnexStore } from "../../src/store/knex/create-knex-store.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { createTestSluice } from "./test-sluice.js";

/** Starts a real process, SIGKILLs it and returns its (now dead) pid. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((r) => child.once("spawn", r));
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
  return child.pid as number;
}

describe("crash recovery", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
  });
  afterAll(async () => db?.drop());

  it("a run left running by a killed process is failed with `interrupted` at start and can be resumed", async () => {
    const first = await createTestSluice(db);
    const pipeline = await first.pipelines.create({
      name: "recover",
      nodes: [{ id: "s", type: "source_file", config: { rows: [{ a: 1 }] } }],
    });
    await first.close();

    // what a SIGKILLed `sluice serve` leaves behind: a `running` run owned by a process that no longer exists
    const pid = await deadPid();
    const store = await createKnexStore(db.url);
    const at = new Date().toISOString();
    await store.runs.insert([
      {
        id: "r-crashed",
        pipeline_id: pipeline.id,
        status: "pending",
        trigger: "manual",
        params: {},
        error: null,
        created_at: at,
        started_at: null,
        finished_at: null,
      },
    ]);
    expect(await store.runs.claimPending(`${os.hostname()}:${pid}:dead`, 1, at)).toHaveLength(1);
    await store.close();

    const second = await createTestSluice(db);
    const failedEvents: string[] = [];
    second.events.on("run.failed", (e) => failedEvents.push(`${e.run_id}:${e.error}`));
    await second.start();
    try {
      const run = await second.runs.get("r-crashed");
      expect(run).toMatchObject({ status: "failed", error: "interrupted" });
      expect(failedEvents).toEqual(["r-crashed:interrupted"]);
      await second.runs.resume("r-crashed");
      for (;;) {
        const r = await second.runs.get("r-crashed");
        if (r.status === "success") break;
        expect(r.status === "pending" || r.status === "running").toBe(true);
        await new Promise((res) => setTimeout(res, 10));
      }
      expect((await second.runs.get("r-crashed")).node_runs.map((n) => n.status)).toEqual(["success"]);
    } finally {
      await second.close();
    }
  });

  /** A started Sluice on the test database and the run it was just asked for: one node that waits to be aborted. */
  async function triggerRunUntilAborted(name: string) {
    const sluice = await createTestSluice(db);
    await sluice.start();
    const p = await sluice.pipelines.create({
      name,
      nodes: [{ id: "wait", type: "code", config: { code: "x", wait_for_abort: true } }],
    });
    return { sluice, queued: await sluice.runs.trigger(p.id) };
  }

  it("close() interrupts executing runs: they end failed/interrupted and resumable", async () => {
    const { sluice, queued } = await triggerRunUntilAborted("long");
    // executing: its node has started (a run is `running` from its trigger when a slot was free)
    while ((await sluice.runs.get(queued.id)).node_runs[0]?.status !== "running")
      await new Promise((r) => setTimeout(r, 5));
    await sluice.close();
    const store = await createKnexStore(db.url);
    try {
      expect(await store.runs.get(queued.id)).toMatchObject({ status: "failed", error: "interrupted" });
    } finally {
      await store.close();
    }
  });

  it("close() hands back a run queued already claimed that has not started: pending again, for the next claim", async () => {
    const { sluice, queued } = await triggerRunUntilAborted("queued at shutdown");
    // nothing between the trigger and close lets the run start: it starts at the end of the trigger's turn
    await sluice.close();
    const store = await createKnexStore(db.url);
    try {
      expect(await store.runs.get(queued.id)).toMatchObject({ status: "pending", started_at: null });
      expect(await store.knex("runs").where({ id: queued.id }).first()).toMatchObject({ owner: null });
      expect(await store.runs.nodeRuns(queued.id)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
