import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeOf, type Sluice } from "../../src/index.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { createSlotHolder, createTestSluice, runEnded } from "./test-sluice.js";

/*
 * A run triggered while the executor has a free slot is queued already claimed by it: inserted `running`, owned, at
 * epoch 1, and started without a claim statement. One triggered while every slot is busy is queued `pending` and
 * claimed when a slot frees, as before.
 */
let db: TestDatabase;
let sluice: Sluice;
beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  sluice = await createTestSluice(db, { maxConcurrentRuns: 1 });
  // every run the executor claims with a claim statement (the real store's, recorded on the way)
  const runs = storeOf(sluice).runs;
  const claimPending = runs.claimPending.bind(runs);
  runs.claimPending = async (...args) => {
    const got = await claimPending(...args);
    claimedByStatement.push(...got.map((r) => r.id));
    return got;
  };
  await sluice.start();
});
const claimedByStatement: string[] = [];
afterAll(async () => {
  await sluice?.close();
  await db?.drop();
});

const row = async (id: string) =>
  (await storeOf(sluice).knex("runs").where({ id }).first()) as {
    status: string;
    owner: string | null;
    epoch: number;
    started_at: string | null;
    created_at: string;
    heartbeat_at: string | null;
  };

const terminal = async (runId: string) => (await runEnded(sluice, runId)).status;

describe("runs queued already claimed", () => {
  it("takes a free slot at the trigger; with none free the run waits pending and is claimed when one frees", async () => {
    const blocking = await createSlotHolder(sluice);
    const quick = await sluice.pipelines.create({
      name: "quick",
      nodes: [{ id: "src", type: "source_file", config: { rows: [{ a: 1 }] } }],
      edges: [],
    });

    // a quiet server (its start-up claim done, nothing pending) takes a free slot at the trigger
    let first = await sluice.runs.trigger(blocking.id);
    for (let i = 0; i < 50 && (await row(first.id)).owner === null; i++) {
      await sluice.runs.cancel(first.id);
      expect(await terminal(first.id)).toBe("cancelled");
      await new Promise((r) => setTimeout(r, 50));
      first = await sluice.runs.trigger(blocking.id);
    }
    expect(first.status).toBe("pending"); // what the trigger answers (SPEC: 202 … status pending)
    const stored = await row(first.id);
    expect(stored).toMatchObject({ status: "running", owner: sluice.executor.owner, epoch: 1 });
    expect(stored.started_at).toBe(stored.created_at);
    expect(stored.heartbeat_at).toBe(stored.created_at);

    const second = await sluice.runs.trigger(quick.id);
    expect(await row(second.id)).toMatchObject({ status: "pending", owner: null, epoch: 0 });

    await sluice.runs.cancel(first.id);
    expect(await terminal(first.id)).toBe("cancelled");
    expect(await terminal(second.id)).toBe("success");
    expect((await row(second.id)).epoch).toBe(1); // claimed once
    expect(claimedByStatement).toContain(second.id);
    expect(claimedByStatement).not.toContain(first.id);
  });
});
