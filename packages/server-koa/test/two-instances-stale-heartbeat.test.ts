import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, pgRunOwner, pgRunRow, tempDir, testDialects } from "../../../test-support/databases.js";
import { apiJson, spawnInstance, type ServeProcess } from "../../../test-support/serve-process.js";

const HEARTBEAT_MS = 500;
const STALE_MS = 2000;
const servers: ServeProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop("SIGKILL");
});

/** The built `sluice serve` (`npm run build -w @sluice/server-koa` first) with short heartbeat and stale limits. */
const serve = (db: string, instanceId: string) =>
  spawnInstance(db, instanceId, { heartbeatMs: HEARTBEAT_MS, staleMs: STALE_MS, cwd: tempDir(), started: servers });
const api = apiJson;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const postgres = (await testDialects()).includes("postgres");

/*
 * Two `sluice serve` on one PostgreSQL with different --instance-id values: to each other they are on other hosts,
 * so a run of the other is judged by its heartbeat age only (no pid check). The one executing a run is SIGKILLed;
 * the survivor must fail it with `interrupted` within stale + one heartbeat (+ margin), and not before it is stale.
 */
describe.skipIf(!postgres)("two instances on one PostgreSQL, short heartbeat/stale limits", () => {
  it("postgres: SIGKILL of the instance executing a run → the other marks it failed/interrupted in time", async () => {
    const db = await createTestDatabase("postgres");
    try {
      const a = await serve(db.url, "instance-a");
      const pipeline = await api<{ id: string }>(a.url, "/pipelines", {
        name: "long run",
        nodes: [
          {
            id: "slow",
            type: "code",
            config: { code: "await new Promise(r => setTimeout(r, 60000)); return rows;" },
          },
        ],
        edges: [],
      });
      const run = await api<{ id: string }>(a.url, `/pipelines/${pipeline.id}/run`, { params: {} });
      let state = { status: "pending", node_runs: [] as { node_id: string; status: string }[] };
      for (let i = 0; i < 300 && !state.node_runs.some((n) => n.status === "running"); i++) {
        await sleep(20);
        state = await api<typeof state>(a.url, `/runs/${run.id}`);
      }
      expect(state.status).toBe("running");

      // started after the run is claimed, so instance-a is the one executing it
      const b = await serve(db.url, "instance-b");
      // a live owner on "another host" keeps its run through more than one stale period
      await sleep(STALE_MS + 2 * HEARTBEAT_MS);
      expect((await api<{ status: string }>(b.url, `/runs/${run.id}`)).status).toBe("running");

      a.child.kill("SIGKILL");
      const killedAt = Date.now();
      let after = { status: "running", error: null as string | null };
      while (after.status === "running" && Date.now() - killedAt < 15_000) {
        await sleep(25);
        after = await api<typeof after>(b.url, `/runs/${run.id}`);
      }
      const tookMs = Date.now() - killedAt;
      console.log(
        `instance-b marked instance-a's run ${after.status}/${after.error} ${tookMs} ms after SIGKILL ` +
          `(heartbeat ${HEARTBEAT_MS} ms, stale ${STALE_MS} ms; bound ${STALE_MS + HEARTBEAT_MS} ms + margin)`,
      );
      expect(after).toMatchObject({ status: "failed", error: "interrupted" });
      // timed on the servers' clock, from instance-a's last heartbeat (which may precede the kill by an interval, or
      // more on a loaded machine) to instance-b's marking: not before it is stale, and at its next check after
      const row = await pgRunRow(db.url, run.id);
      const staleFor = Date.parse(String(row?.finished_at)) - Date.parse(String(row?.heartbeat_at));
      expect(staleFor).toBeGreaterThanOrEqual(STALE_MS);
      expect(staleFor).toBeLessThan(STALE_MS + HEARTBEAT_MS + 1000);
      // and, as the test sees it, within the bound plus a loaded machine's delays
      expect(tookMs).toBeLessThan(STALE_MS + HEARTBEAT_MS + 5000);
      b.child.kill("SIGTERM");
    } finally {
      await db.drop();
    }
  }, 60_000);

  it("postgres: a run whose instance died is resumed by the survivor when the interrupted node has a retry left", async () => {
    const db = await createTestDatabase("postgres");
    try {
      // both up before the run starts (a slow start on a loaded machine must not outlast the node); whichever
      // claims the run is the one killed
      const instances = {
        "instance-a": await serve(db.url, "instance-a"),
        "instance-b": await serve(db.url, "instance-b"),
      };
      const a = instances["instance-a"];
      const pipeline = await api<{ id: string }>(a.url, "/pipelines", {
        name: "retried after a death",
        nodes: [
          { id: "first", type: "transform", config: { rules: [{ type: "add_column", name: "x", expression: "1" }] } },
          {
            id: "slow",
            type: "code",
            // one retry more than the kill needs: with 500 ms / 2 s limits, a loaded machine can make an instance
            // look dead once by itself
            max_retries: 2,
            config: { code: "await new Promise(r => setTimeout(r, 6000)); return [{ done: true }];" },
          },
        ],
        edges: [{ from: "first", to: "slow" }],
      });
      const run = await api<{ id: string }>(a.url, `/pipelines/${pipeline.id}/run`, { params: {} });
      let state = { status: "pending", node_runs: [] as { node_id: string; status: string; attempt: number }[] };
      const triggeredAt = Date.now();
      while (!state.node_runs.some((n) => n.node_id === "slow" && n.status === "running")) {
        if (Date.now() - triggeredAt > 30_000) throw new Error(`the node never ran: ${JSON.stringify(state)}`);
        await sleep(20);
        state = await api<typeof state>(a.url, `/runs/${run.id}`);
      }
      const owner = await pgRunOwner(db.url, run.id);
      const executing = owner.startsWith("instance-a:") ? "instance-a" : "instance-b";
      const b = instances[executing === "instance-a" ? "instance-b" : "instance-a"];
      instances[executing].child.kill("SIGKILL");
      let after = { status: "running", error: null as string | null, node_runs: state.node_runs };
      const killedAt = Date.now();
      // the run is `failed` / `interrupted` for a moment before the survivor queues it again: wait for its end
      while (after.status !== "success" && Date.now() - killedAt < 30_000) {
        await sleep(50);
        after = await api<typeof after>(b.url, `/runs/${run.id}`);
      }
      expect(after.status).toBe("success");
      // the interrupted attempt counted: the node finished on a later one (the node before it ran again: a dead
      // process stored no outputs to resume from)
      const slow = after.node_runs.find((n) => n.node_id === "slow");
      expect(slow).toMatchObject({ status: "success" });
      expect(slow!.attempt).toBeGreaterThanOrEqual(2);
      expect(after.node_runs.find((n) => n.node_id === "first")).toMatchObject({ status: "success", attempt: 1 });
      const logs = await api<{ message: string }[]>(b.url, `/runs/${run.id}/logs`);
      expect(logs.map((l) => l.message)).toContain(
        "resumed automatically: its instance stopped; going on with slow (attempt 2)",
      );
      b.child.kill("SIGTERM");
    } finally {
      await db.drop();
    }
  }, 60_000);
});
