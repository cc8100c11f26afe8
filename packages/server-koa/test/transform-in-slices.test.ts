import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

/**
 * A `transform` runs on the server's thread (its expressions are the engine's own evaluator, not user code), so one
 * over many rows could hold every request, every other run and its own timeout until it ended: 300,000 rows through
 * a few rules held the server for 0.5–2 s. It works in slices (engine/slices.ts). These tests are the editor's
 * pipeline that would hold it: a CSV of 300,000 rows through ten rules, about 1–3 s of work on a 2-core machine.
 * (A node's profile of a large output is made in slices too, after the node: here the output is a few rows.)
 */
const ROWS = 300_000;
const RULES = [
  ...Array.from({ length: 9 }, (_, i) => ({
    type: "add_column",
    name: `x${i + 1}`,
    expression: i === 0 ? "amount * 2" : `x${i} + 1`,
  })),
  // few rows out: the output's profile is made at once, so the node's time is the rules' own
  { type: "filter", expression: 'x9 % 1000 == 0 && status == "refunded"' },
];

interface RunBody {
  status: string;
  node_runs: { node_id: string; status: string; error?: string | null }[];
}

let t: TestServer;
let dir: string;
let csv: string;

beforeAll(async () => {
  t = await startTestServer("sqlite");
  // file nodes read inside the file roots; the OS temp dir is one by default
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-big-transform-"));
  csv = path.join(dir, "orders.csv");
  const lines = ["id,region,amount,status"];
  for (let i = 0; i < ROWS; i++)
    lines.push(`${i},${["eu", "us", "apac"][i % 3]},${i % 997},${i % 7 ? "ok" : "refunded"}`);
  fs.writeFileSync(csv, lines.join("\n"));
});

afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const getRun = async (id: string) => (await (await t.fetch(`/runs/${id}`)).json()) as RunBody;
const nodeOf = (run: RunBody, id: string) => run.node_runs.find((n) => n.node_id === id);

async function createPipeline(body: object): Promise<string> {
  const res = await t.fetch("/pipelines", { method: "POST", json: body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function trigger(pipelineId: string): Promise<string> {
  const res = await t.fetch(`/pipelines/${pipelineId}/run`, { method: "POST", json: {} });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** Polls the run until `done` says so (or 30 s pass, which fails). */
async function runUntil(id: string, done: (run: RunBody) => boolean, what: string): Promise<RunBody> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await getRun(id);
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 30 s: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Triggers the big transform and waits until the API shows its transform node running (the CSV read before it). */
async function startBigTransform(name: string): Promise<string> {
  const pipelineId = await createPipeline({
    name,
    nodes: [
      { id: "read", type: "source_file", config: { path: csv, format: "csv" } },
      { id: "big", type: "transform", config: { rules: RULES } },
    ],
    edges: [{ from: "read", to: "big" }],
  });
  const id = await trigger(pipelineId);
  const run = await runUntil(
    id,
    (r) => nodeOf(r, "big")?.status !== "pending" && nodeOf(r, "big") !== undefined,
    "the transform node starting",
  );
  // held the server, the node's start would be written with its end: the API would never show it running
  expect(nodeOf(run, "big")?.status, JSON.stringify(run)).toBe("running");
  return id;
}

describe("a transform over many rows does not hold the server", () => {
  it("while it works, another pipeline is triggered, runs and ends, and the transform is still running", async () => {
    const id = await startBigTransform("300,000 rows, ten rules");
    expect((await fetch(`${t.baseUrl}/health`)).status).toBe(200);
    const small = await createPipeline({
      name: "one row",
      nodes: [{ id: "t", type: "transform", config: { rules: [{ type: "add_column", name: "a", expression: "1" }] } }],
    });
    const smallRun = await runUntil(
      await trigger(small),
      (r) => r.status !== "pending" && r.status !== "running",
      "the small run ending",
    );
    expect(smallRun.status).toBe("success");
    expect(nodeOf(await getRun(id), "big")?.status).toBe("running");

    const ended = await runUntil(id, (r) => r.status !== "running", "the big run ending");
    expect(ended.status).toBe("success");
    expect(nodeOf(ended, "big")?.status).toBe("success");
  });

  it("a cancel ends it while it works: the node ends cancelled, not after all its rows as a success", async () => {
    const id = await startBigTransform("300,000 rows, cancelled");
    expect((await t.fetch(`/runs/${id}/cancel`, { method: "POST" })).status).toBe(200);
    const run = await runUntil(id, (r) => nodeOf(r, "big")?.status !== "running", "the transform node ending");
    expect(run.status).toBe("cancelled");
    expect(nodeOf(run, "big")?.status).toBe("cancelled");
  });
});
