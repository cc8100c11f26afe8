import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Sluice } from "../../src/index.js";
import type { Row } from "../../src/engine/dataset.js";
import { createTestDatabase, type TestDatabase } from "../../../../test-support/databases.js";
import { pollUntil } from "../../../../test-support/poll.js";
import { probe } from "./fixture-node-types.js";
import { createTestSluice, runEnded } from "./test-sluice.js";
import { createKnexStore } from "../../src/store/knex/create-knex-store.js";
import { KEPT_PART_CHARS } from "../../src/engine/kept-output.js";

/**
 * A failed run keeps the outputs of its succeeded nodes, so that a resume does not run them again. Their JSON was made
 * on the server's thread in one go, after a walk over every value to estimate its size: over 300,000 rows a failed
 * run held the whole server for 0.8–2 s (bench/http-big-nodes.mjs --node failed). It is made a piece of rows at a
 * time now; a cancel that comes meanwhile is too late, as it was when the thread was held.
 */
let db: TestDatabase;
let sluice: Sluice;
const failedAt = new Map<string, number>();

beforeAll(async () => {
  db = await createTestDatabase("sqlite");
  sluice = await createTestSluice(db);
  sluice.events.on("run.failed", (e: { run_id: string }) => failedAt.set(e.run_id, performance.now()));
  await sluice.start();
});
afterAll(async () => {
  await sluice?.close();
  await db?.drop();
});
beforeEach(() => probe.reset());

const ROWS = 200_000;

function orders(): { columns: string[]; rows: Row[] } {
  const rows: Row[] = [];
  for (let i = 0; i < ROWS; i++)
    rows.push({ id: i, customer: `c${i % 997}`, region: ["eu", "us"][i % 2], amount: i % 13 ? i / 4 : null });
  return { columns: ["id", "customer", "region", "amount"], rows };
}

/** `read` emits the orders (made outside the run); `load`, after it, fails its first attempt. */
async function failingPipeline(): Promise<string> {
  const p = await sluice.pipelines.create({
    name: `kept outputs ${Math.random()}`,
    nodes: [
      { id: "read", type: "source_file", config: { probe_rows: "orders" } },
      { id: "load", type: "code", config: {} },
    ],
    edges: [{ from: "read", to: "load" }],
  });
  probe.dataSets.set("orders", orders());
  probe.failUntil.set("load", 1);
  return p.id;
}

describe("a failed run's kept outputs", () => {
  it("are written while the event loop keeps turning, from the failure to the run's end", async () => {
    const id = await failingPipeline();
    const ticks: number[] = [];
    let ticking = true;
    const tick = () => {
      ticks.push(performance.now());
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const run = await sluice.runs.trigger(id);
    expect((await runEnded(sluice, run.id)).status).toBe("failed");
    await pollUntil(async () => failedAt.get(run.id)); // announced just after the run's end is committed
    await new Promise((resolve) => setImmediate(resolve)); // and a turn after that
    ticking = false;
    const from = probe.failedAt;
    const to = failedAt.get(run.id) as number;
    expect(from).toBeGreaterThan(0);
    // the turns from the failure to the run's end, and the longest wait between two of them (the ones around the
    // window included)
    const inside = ticks.filter((t) => t > from && t < to);
    const around = [Math.max(...ticks.filter((t) => t <= from)), ...inside, Math.min(...ticks.filter((t) => t >= to))];
    const longest = Math.max(...around.slice(1).map((t, i) => t - (around[i] as number)));
    expect(inside.length).toBeGreaterThan(4);
    expect(longest).toBeLessThan((to - from) / 2);
  });

  it("refuse a cancel that comes while they are written: the run ends failed, with its error, and resumes", async () => {
    const id = await failingPipeline();
    const run = await sluice.runs.trigger(id);
    // the first turn of the event loop after the node failed: the run is writing its kept outputs, in slices
    await new Promise<void>((resolve) => {
      const look = () => (probe.failedAt > 0 ? resolve() : setImmediate(look));
      look();
    });
    await expect(sluice.runs.cancel(run.id)).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringContaining("is already failed"),
    });
    expect(await runEnded(sluice, run.id)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("planned failure"),
    });
    expect(await sluice.runs.resume(run.id)).toEqual({ id: run.id, status: "pending" });
    expect((await runEnded(sluice, run.id)).status).toBe("success");
    expect(probe.calls.get("read")).toBe(1);
  });

  it("are kept in parts of at most a million characters, named by the output's row; none is left after a resume", async () => {
    const id = await failingPipeline();
    const run = await runEnded(sluice, (await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("failed");
    const kept = await keptRows(run.id);
    const parts = kept.filter((r) => r.kind !== "output");
    // about 12 MB of rows, in parts of at most a million characters (a row is never split)
    expect(parts.length).toBeGreaterThan(10);
    expect(parts.map((r) => r.kind).sort()).toEqual(parts.map((_, i) => `output:${i + 1}`).sort());
    for (const part of parts) expect(part.data.length).toBeLessThanOrEqual(KEPT_PART_CHARS + 200);
    const head = kept.find((r) => r.kind === "output");
    expect(JSON.parse(head?.data ?? "null")).toEqual({
      columns: ["id", "customer", "region", "amount"],
      parts: parts.length,
    });
    const rows = parts
      .sort((a, b) => Number(a.kind.split(":")[1]) - Number(b.kind.split(":")[1]))
      .flatMap((p) => JSON.parse(p.data) as Row[]);
    expect(rows).toEqual(orders().rows);

    await sluice.runs.resume(run.id);
    expect((await runEnded(sluice, run.id)).status).toBe("success");
    expect(probe.calls.get("read")).toBe(1);
    expect(await keptRows(run.id)).toEqual([]);
  });

  it("are not used when a part is missing: the node runs again on resume, and the run succeeds", async () => {
    const id = await failingPipeline();
    const run = await runEnded(sluice, (await sluice.runs.trigger(id)).id);
    expect(run.status).toBe("failed");
    await withStore((store) => store.knex("node_outputs").where({ run_id: run.id, kind: "output:3" }).delete());
    await sluice.runs.resume(run.id);
    expect((await runEnded(sluice, run.id)).status).toBe("success");
    expect(probe.calls.get("read")).toBe(2);
    const load = (await sluice.runs.get(run.id)).node_runs.find((n) => n.node_id === "load");
    expect(load).toMatchObject({ status: "success", row_count: ROWS });
  });

  it("feed a resume: the succeeded node is not run again and its rows reach the node after it", async () => {
    const id = await failingPipeline();
    const first = await runEnded(sluice, (await sluice.runs.trigger(id)).id);
    expect(first.status).toBe("failed");
    await sluice.runs.resume(first.id);
    const resumed = await runEnded(sluice, first.id);
    expect(resumed.status).toBe("success");
    expect(probe.calls.get("read")).toBe(1);
    const load = (await sluice.runs.get(first.id)).node_runs.find((n) => n.node_id === "load");
    expect(load).toMatchObject({ status: "success", row_count: ROWS, attempt: expect.any(Number) });
    const preview = await sluice.runs.preview(first.id, "load");
    expect(preview.rows.slice(0, 3)).toEqual(orders().rows.slice(0, 3));
    expect(preview.columns).toEqual(["id", "customer", "region", "amount"]);
  });
});

/** `fn` with a second store on the test's database, closed after. */
async function withStore<T>(fn: (store: Awaited<ReturnType<typeof createKnexStore>>) => Promise<T>): Promise<T> {
  const store = await createKnexStore(db.url);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The run's rows of kept outputs and their parts, as stored. */
const keptRows = (runId: string) =>
  withStore(
    async (store) =>
      (await store
        .knex("node_outputs")
        .select("kind", "data")
        .where({ run_id: runId })
        .andWhere("kind", "like", "output%")) as { kind: string; data: string }[],
  );
