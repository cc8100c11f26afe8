import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WriteBuffer } from "../../src/engine/write-buffer.js";
import type { NodeRun } from "../../src/model/run.js";
import { createKnexStore, type KnexStore } from "../../src/store/knex/create-knex-store.js";
import type { RunClaim } from "../../src/store/ports.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { nodeRunRow, pendingRun, T0 } from "../../../../test-support/run-fixtures.js";

const t0 = T0;
const run = pendingRun;
const nodeRun = (id: string, runId: string, status: NodeRun["status"]) =>
  nodeRunRow(id, runId, { node_id: id, status });

/*
 * This process lost a run (another instance failed it), then claimed it again: two executions of one run, an old
 * claim and a new one. What the old one still writes must neither reach the database nor stop the new one.
 */
describe("the group commit under two claims of one run", () => {
  let db: TestDatabase;
  let store: KnexStore;
  let first: RunClaim;
  let second: RunClaim;
  beforeAll(async () => {
    db = await createTestDatabase("sqlite");
    store = await createKnexStore(db.url);
    await store.runs.insert([run("twice")]);
    first = { owner: "me", epoch: (await store.runs.claimPending("me", 1, t0))[0]!.epoch };
    await store.runs.failRunsOfOwners(["me"], "interrupted", t0);
    await store.runs.transition("twice", ["failed"], "pending", { error: null, finished_at: null, owner: null });
    second = { owner: "me", epoch: (await store.runs.claimPending("me", 1, t0))[0]!.epoch };
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("the old execution's writes and end are dropped, the new one's written, and no refusal names the new claim", async () => {
    const refusals: { runId: string; claim: RunClaim }[][] = [];
    const buffer = new WriteBuffer(store.runs, {
      onError: (e) => {
        throw e;
      },
      onRefused: (r) => refusals.push(r),
    });
    expect(second.epoch).toBeGreaterThan(first.epoch);
    buffer.nodeRun(nodeRun("old-node", "twice", "success"), first);
    const oldEnd = buffer.transition({
      id: "twice",
      from: ["running"],
      to: "success",
      fields: { owner: null },
      claim: first,
    });
    buffer.nodeRun(nodeRun("new-node", "twice", "running"), second);
    expect(await oldEnd).toBe(false);
    expect((await store.runs.nodeRuns("twice")).map((n) => n.node_id)).toEqual(["new-node"]);
    expect(await store.runs.get("twice")).toMatchObject({ status: "running" });
    expect(refusals).toEqual([]);

    // the old execution alone in a batch: refused, and reported under its own (old) claim
    buffer.nodeRun(nodeRun("old-late", "twice", "failed"), first);
    await buffer.flush();
    expect(refusals).toEqual([[{ runId: "twice", claim: first }]]);
    expect((await store.runs.nodeRuns("twice")).map((n) => n.node_id)).toEqual(["new-node"]);

    const newEnd = buffer.transition({
      id: "twice",
      from: ["running"],
      to: "success",
      fields: { owner: null },
      claim: second,
    });
    expect(await newEnd).toBe(true);
    expect(await store.runs.get("twice")).toMatchObject({ status: "success" });
  });
});
