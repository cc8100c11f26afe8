/**
 * A node that succeeds is logged once (docs/runs.md): the engine's `completed: N rows in T ms`, then what the node
 * says it did. A secret the node used is masked in that line as in every log line, and the WebSocket's `log` events
 * carry the same lines.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { dataSetFromRows, defineNodeType } from "../../core/src/index.js";
import { LOG_LINE_CHARS } from "../../core/src/engine/run-log-budget.js";
import { startPeer, type PeerServer } from "../../core/test/engine/peer-server.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { createPipeline, runPipeline, subscribe, triggerAndWait } from "./security/attack-support.js";

const SECRET = "path-secret-71c3e9";
const MASK = "********";

/** Node types whose summaries a built-in would never give: one far longer than a log line, one that is not text. */
const summarising = (type: string, summary: unknown) =>
  defineNodeType({
    type,
    configSchema: z.looseObject({}),
    async run() {
      return { output: dataSetFromRows([{ n: 1 }]), summary: summary as string };
    },
  });

let t: TestServer;
let api: PeerServer;
let sink: PeerServer;

beforeAll(async () => {
  t = await startTestServer("sqlite", {
    nodeTypes: {
      long_summary: summarising("long_summary", `start ${"x".repeat(100_000)} end`),
      object_summary: summarising("object_summary", { not: "text" }),
    },
  });
  api = await startPeer(() => ({
    json: [
      { id: 1, amount: 5 },
      { id: 2, amount: -1 },
      { id: 3, amount: 7 },
    ],
  }));
  sink = await startPeer(() => ({ status: 204 }));
  const variable = await t.fetch("/variables", {
    method: "POST",
    json: { key: "SINK_SECRET", value: SECRET, type: "secret" },
  });
  expect(variable.status).toBe(201);
});
afterAll(async () => {
  await Promise.all([api?.close(), sink?.close()]);
  await t?.close();
});

interface LogLine {
  node_id: string | null;
  level: string;
  message: string;
}

describe("a node's log line", () => {
  it("is one per node that succeeded: the row count and time, then what the node did, with secrets masked", async () => {
    const pipelineId = await createPipeline(t, {
      name: "one line per node",
      nodes: [
        { id: "pull", type: "source_api", config: { url: `${api.url}/rows` } },
        { id: "keep", type: "transform", config: { rules: [{ type: "filter", expression: "amount > 0" }] } },
        { id: "gate", type: "condition", config: { expression: "row_count > 0" } },
        { id: "push", type: "sink_api", config: { url: `${sink.url}/in/\${var.SINK_SECRET}` } },
      ],
      edges: [
        { from: "pull", to: "keep" },
        { from: "keep", to: "gate" },
        { from: "gate", to: "push" },
      ],
    });
    const ws = await subscribe(t, pipelineId);
    const run = await triggerAndWait(t, pipelineId);
    expect(run.status).toBe("success");
    // the secret really went out, so a leak would have had something to leak
    expect(sink.received[0]!.url).toBe(`/in/${SECRET}`);

    const logs = (await (await t.fetch(`/runs/${run.id}/logs`)).json()) as LogLine[];
    const completions = (node: string) =>
      logs.filter((l) => l.node_id === node && l.message.startsWith("completed: ")).map((l) => l.message);
    // source_api logs each page as it reads it, and says nothing more at its end
    expect(completions("pull")).toEqual([expect.stringMatching(/^completed: 3 rows in \d+ ms$/)]);
    expect(completions("keep")).toEqual([
      expect.stringMatching(/^completed: 2 rows in \d+ ms; transform: 1 rules, 3 rows in, 2 rows out$/),
    ]);
    expect(completions("gate")).toEqual([
      expect.stringMatching(/^completed: 2 rows in \d+ ms; condition "row_count > 0" is true: downstream nodes run$/),
    ]);
    expect(completions("push")).toEqual([
      expect.stringMatching(
        new RegExp(`^completed: 2 rows in \\d+ ms; delivered 2 rows to ${sink.url}/in/\\*{8} in batches of \\d+$`),
      ),
    ]);
    // the transform, the condition and the sink say nothing else: their one line is their completion
    for (const node of ["keep", "gate", "push"]) expect(logs.filter((l) => l.node_id === node)).toHaveLength(1);
    const text = JSON.stringify(logs);
    expect(text).toContain(MASK);
    expect(text).not.toContain(SECRET);

    // the stream's log events are the same lines, masked the same way
    const deadline = Date.now() + 10_000;
    const logEvents = () =>
      ws.raw
        .map((m) => JSON.parse(m) as { type: string; run_id?: string; node_id?: string; message?: string })
        .filter((e) => e.type === "log" && e.run_id === run.id);
    while (logEvents().length < logs.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    ws.close();
    expect(logEvents().map((e) => e.message)).toEqual(logs.map((l) => l.message));
    expect(ws.raw.join("\n")).not.toContain(SECRET);
  });

  it("is cut like any log line, and a summary that is not text is left out", async () => {
    const { run } = await runPipeline(t, {
      name: "custom summaries",
      nodes: [
        { id: "long", type: "long_summary", config: {} },
        { id: "odd", type: "object_summary", config: {} },
      ],
      edges: [],
    });
    expect(run.status).toBe("success");
    const logs = (await (await t.fetch(`/runs/${run.id}/logs`)).json()) as LogLine[];
    const [long] = logs.filter((l) => l.node_id === "long").map((l) => l.message);
    expect(long).toMatch(/^completed: 1 rows in \d+ ms; start x+/);
    expect(long!.length).toBeLessThanOrEqual(LOG_LINE_CHARS);
    expect(long).not.toContain(" end");
    expect(logs.filter((l) => l.node_id === "odd").map((l) => l.message)).toEqual([
      expect.stringMatching(/^completed: 1 rows in \d+ ms$/),
    ]);
  });
});
