import { describe, expect, it } from "vitest";
import { storeOf } from "../../src/index.js";
import { testDialects } from "../../../../test-support/databases.js";
import { pollUntil } from "../../../../test-support/poll.js";
import { createSlotHolder, runEnded, startTestSluice } from "./test-sluice.js";

const dialects = await testDialects();

/*
 * A run executes its pipeline as stored when the run starts. Runs still waiting for a slot when their pipeline is
 * deleted fail with "the pipeline was deleted" when their turn comes, on every database. Before, on SQLite and
 * MySQL the process that queued them kept the pipeline it had queued them with for a minute and executed it: a
 * helper's attack saw 222 runs of deleted pipelines execute for 20 s and hold every slot.
 */
describe.each(dialects)("%s: runs waiting when their pipeline is deleted", (dialect) => {
  it("fail with 'the pipeline was deleted' and execute nothing", async () => {
    const s = await startTestSluice(dialect, { maxConcurrentRuns: 1 });
    const blocking = await createSlotHolder(s, "holds the only slot until cancelled");
    const doomed = await s.pipelines.create({
      name: "deleted while its runs wait",
      nodes: [{ id: "src", type: "source_file", config: { rows: [{ a: 1 }] } }],
      edges: [],
    });
    const blocker = await s.runs.trigger(blocking.id);
    expect(await pollUntil(async () => ((await s.runs.get(blocker.id)).status === "running" ? true : undefined))).toBe(
      true,
    );
    const waiting = [];
    for (let i = 0; i < 3; i++) waiting.push(await s.runs.trigger(doomed.id));
    for (const run of waiting) expect((await s.runs.get(run.id)).status).toBe("pending");

    await s.pipelines.delete(doomed.id);
    await s.runs.cancel(blocker.id);

    for (const { id } of waiting) {
      const run = await runEnded(s, id);
      expect(run).toMatchObject({ status: "failed", error: "the pipeline was deleted" });
      const nodeRuns = await storeOf(s).knex("node_runs").where({ run_id: id });
      expect(nodeRuns).toEqual([]);
    }
  });
});
