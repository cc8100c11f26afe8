/**
 * Found by a helper's attack on 2026-11-27: while SQLite's write-ahead log was checkpointed under load, the file
 * stayed locked past the store's busy timeout (5 s), and the batch of run state that met the lock was written again
 * in pieces, each meeting the same lock, and lost: a `success` run kept node runs `running`, its logs missing. Here
 * another connection holds the write lock for longer than the busy timeout while a run executes; every write must
 * land once the lock is gone.
 */
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

describe("a database busy for longer than the busy timeout", () => {
  it("delays a run's writes but loses none of them", async () => {
    const pipeline = await t.client.pipelines.create({
      name: "busy",
      nodes: [
        { id: "a", type: "transform", config: { rules: [] } },
        { id: "b", type: "transform", config: { rules: [] } },
      ],
      edges: [{ from: "a", to: "b" }],
    });
    const holder = new Database(t.db.url.replace(/^sqlite:/, ""));
    holder.exec("BEGIN IMMEDIATE"); // the write lock, as a long checkpoint holds it
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        holder.exec("ROLLBACK");
        holder.close();
        resolve();
      }, 6_000),
    );
    const triggered = t.fetch(`/pipelines/${pipeline.id}/run`, { method: "POST", json: {} });
    await released;
    const { id } = (await (await triggered).json()) as { id: string };
    const run = await t.client.runs.wait(id, { timeoutMs: 60_000 });
    expect(run.status).toBe("success");
    expect(run.node_runs.map((n) => [n.node_id, n.status])).toEqual([
      ["a", "success"],
      ["b", "success"],
    ]);
    const logs = (await (await t.fetch(`/runs/${id}/logs`)).json()) as { node_id: string | null }[];
    for (const node of ["a", "b"])
      expect(
        logs.some((l) => l.node_id === node),
        node,
      ).toBe(true);
  }, 90_000);
});
