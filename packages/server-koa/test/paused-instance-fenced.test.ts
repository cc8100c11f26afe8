import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, pgRunOwner, tempDir, testDialects } from "../../../test-support/databases.js";
import { pollUntil } from "../../../test-support/poll.js";
import { apiJson, spawnInstance, type ServeProcess } from "../../../test-support/serve-process.js";

const HEARTBEAT_MS = 500;
const STALE_MS = 2000;
const servers: ServeProcess[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.child.kill("SIGCONT");
    await s.stop("SIGKILL");
  }
});

const serve = (db: string, instanceId: string) =>
  spawnInstance(db, instanceId, { heartbeatMs: HEARTBEAT_MS, staleMs: STALE_MS, cwd: tempDir(), started: servers });
const api = apiJson;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RunState {
  status: string;
  error: string | null;
  finished_at: string | null;
  node_runs: { node_id: string; status: string; error: string | null; finished_at: string | null }[];
}

const postgres = (await testDialects()).includes("postgres");

/*
 * The attack on fencing: the instance executing a run is paused (SIGSTOP) past the stale limit, the other instance
 * declares the run interrupted, then the paused one wakes (SIGCONT) with its node's result in hand. Whatever it then
 * writes for that run must be refused (the run stays as the survivor left it, no node result, no log line after the
 * takeover) and it must say so in its log.
 */
describe.skipIf(!postgres)("an instance paused past the stale limit is fenced off its runs", () => {
  it("postgres: SIGSTOP the owner, let the other take the run over, SIGCONT: its late writes are refused and logged", async () => {
    const db = await createTestDatabase("postgres");
    try {
      // both up before the run starts (a slow start on a loaded machine must not outlast the node); whichever
      // claims the run is the one paused
      const one = await serve(db.url, "instance-one");
      const two = await serve(db.url, "instance-two");
      const pipeline = await api<{ id: string }>(one.url, "/pipelines", {
        name: "result arrives late",
        nodes: [
          {
            id: "slow",
            type: "code",
            config: { code: "await new Promise(r => setTimeout(r, 6000)); return [{ n: 1 }];" },
          },
          { id: "after", type: "transform", config: { rules: [{ type: "filter", expression: "true" }] } },
        ],
        edges: [{ from: "slow", to: "after" }],
      });
      const run = await api<{ id: string }>(one.url, `/pipelines/${pipeline.id}/run`, { params: {} });
      let state = await api<RunState>(one.url, `/runs/${run.id}`);
      const triggeredAt = Date.now();
      while (!state.node_runs.some((n) => n.node_id === "slow" && n.status === "running")) {
        if (Date.now() - triggeredAt > 30_000) throw new Error(`the node never ran: ${JSON.stringify(state)}`);
        await sleep(20);
        state = await api<RunState>(one.url, `/runs/${run.id}`);
      }
      const [owner, survivor] = (await pgRunOwner(db.url, run.id)).startsWith("instance-one:")
        ? [one, two]
        : [two, one];

      owner.child.kill("SIGSTOP");
      const pausedAt = Date.now();
      let taken = await api<RunState>(survivor.url, `/runs/${run.id}`);
      while (taken.status === "running" && Date.now() - pausedAt < 15_000) {
        await sleep(50);
        taken = await api<RunState>(survivor.url, `/runs/${run.id}`);
      }
      expect(taken).toMatchObject({ status: "failed", error: "interrupted" });
      console.log(`the survivor took the paused owner's run over ${Date.now() - pausedAt} ms after SIGSTOP`);
      // the node's result is ready before the owner wakes
      await sleep(3000);
      owner.child.kill("SIGCONT");

      const output = () => owner.output();
      await pollUntil(() => /taken over by another instance/.test(output()) || undefined, { everyMs: 50 });
      expect(output()).toMatch(new RegExp(`run ${run.id}: taken over by another instance`));
      // give the woken owner time to try everything it would write
      await sleep(2 * HEARTBEAT_MS + 500);

      const after = await api<RunState>(survivor.url, `/runs/${run.id}`);
      expect(after).toEqual(taken);
      expect(after.node_runs.find((n) => n.node_id === "slow")).toMatchObject({
        status: "failed",
        error: "interrupted",
      });
      expect(after.node_runs.find((n) => n.node_id === "after")?.status).not.toBe("success");
      // after the takeover the log holds only the survivor's verdict, nothing the woken owner wrote
      const logs = await api<{ timestamp: string; message: string }[]>(survivor.url, `/runs/${run.id}/logs`);
      const late = logs.filter((l) => l.timestamp >= after.finished_at!).map((l) => l.message);
      expect(late).toEqual(["interrupted: its instance stopped; not resumed, no retry left for slow (attempt 1)"]);
      // the woken owner still serves, and runs new work normally
      const next = await api<{ id: string }>(owner.url, `/pipelines/${pipeline.id}/run`, { params: {} });
      const done = await pollUntil(
        async () => {
          const state = await api<RunState>(owner.url, `/runs/${next.id}`);
          return ["success", "failed"].includes(state.status) ? state : undefined;
        },
        { everyMs: 50 },
      );
      expect(done?.status).toBe("success");
    } finally {
      await db.drop();
    }
  }, 90_000);
});
