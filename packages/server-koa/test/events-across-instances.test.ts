import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, tempDir, testDialects } from "../../../test-support/databases.js";
import { apiJson, spawnInstance, type ServeProcess } from "../../../test-support/serve-process.js";
import { follow, type StreamMessage } from "../../../test-support/ws-follower.js";

const servers: ServeProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop("SIGKILL");
});

const api = apiJson;

/** Two transform nodes: a run emits created, started, 2 × (node started, log, node completed), completed. */
const pipeline = {
  name: "seen everywhere",
  nodes: [
    {
      id: "make",
      type: "transform",
      config: { rules: [{ type: "add_column", name: "doubled", expression: "1 * 2" }] },
    },
    { id: "keep", type: "transform", config: { rules: [{ type: "filter", expression: "true" }] } },
  ],
  edges: [{ from: "make", to: "keep" }],
};

const RUNS = 6;
const servable = (await testDialects()).filter((d) => d !== "sqlite");

/*
 * Two real `sluice serve` processes on one database. A WebSocket client of instance A must see every event of the
 * runs triggered through instance B (whichever instance executes them), in order, each run to its end; and a client
 * that reconnects to B with `since` gets the rest of a run it followed on A.
 */
describe.each(servable)("%s: events cross instances", (dialect) => {
  it(`${dialect}: a client of A sees every event of runs triggered on B; \`since\` replays on B`, async () => {
    const db = await createTestDatabase(dialect);
    try {
      const a = await spawnInstance(db.url, "instance-a", { cwd: tempDir(), started: servers });
      const b = await spawnInstance(db.url, "instance-b", { cwd: tempDir(), started: servers });

      const onA = await follow(a.url);
      await onA.until((m) => m.type === "hello");
      const created = await api<{ id: string }>(b.url, "/pipelines", pipeline);
      const runIds: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        runIds.push((await api<{ id: string }>(b.url, `/pipelines/${created.id}/run`, { params: {} })).id);
      }
      for (const id of runIds) await onA.until((m) => m.type === "run.completed" && m.run_id === id, 20_000);

      for (const id of runIds) {
        const events = onA.messages.filter((m) => m.run_id === id);
        const types = events.map((m) => m.type);
        expect(types.filter((t) => t === "run.created")).toHaveLength(1);
        expect(types.at(-1)).toBe("run.completed");
        expect(types.filter((t) => t === "node.completed")).toHaveLength(2);
        // in order: what the executing instance wrote arrives in sequence (run.created may come from the other
        // instance, read from the log a little later: docs/events.md), each event once
        const executed = events.filter((m) => m.type !== "run.created");
        expect(executed[0]?.type).toBe("run.started");
        const seqs = executed.map((m) => m.seq!);
        expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
        expect(new Set(events.map((m) => m.seq)).size).toBe(events.length);
        const keepDone = events.find((m) => m.type === "node.completed" && m.node_id === "keep");
        expect(keepDone).toMatchObject({ status: "success", row_count: 0 });
      }

      // follow the first run from its start on A, drop, reconnect to B with the last seq seen
      const first = runIds[0]!;
      const seenOnA = onA.messages
        .filter((m) => m.run_id === first && m.type !== "subscribed")
        .sort((x, y) => x.seq! - y.seq!);
      const lastSeen = seenOnA[1]!.seq!;
      const onB = await follow(b.url);
      onB.send({ type: "subscribe", run_id: first, since: lastSeen });
      await onB.until((m) => m.type === "run.completed" && m.run_id === first);
      const replayed = onB.messages.filter((m): m is StreamMessage => m.run_id === first && m.type !== "subscribed");
      expect(replayed.map((m) => [m.seq, m.type])).toEqual(seenOnA.slice(2).map((m) => [m.seq, m.type]));
      onA.ws.close();
      onB.ws.close();
      await a.stop();
      await b.stop();
    } finally {
      await db.drop();
    }
  }, 90_000);
});
