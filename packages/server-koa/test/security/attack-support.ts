/** What the attack tests share: a server log that can be searched, run waiting, a real /ws subscriber. */
import WebSocket from "ws";
import { isTerminalRunStatus, type Logger } from "../../../core/src/index.js";
import type { TestServer } from "../../../../test-support/http.js";

/** A Logger keeping every line as the console logger would print it (JSON), so tests can search the server log. */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push(JSON.stringify({ level, message, ...fields }));
  };
  return { lines, debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

export interface RunView {
  id: string;
  status: string;
  error: string | null;
  node_runs: { node_id: string; status: string; error: string | null }[];
}

/** Polls the run until it is finished (generous: a slow shared machine). */
export async function waitForRun(
  t: TestServer,
  runId: string,
  headers: Record<string, string> = {},
  ms = 30_000,
): Promise<RunView> {
  const until = Date.now() + ms;
  for (;;) {
    const run = (await (await t.fetch(`/runs/${runId}`, { headers })).json()) as RunView;
    if (isTerminalRunStatus(run.status)) return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Creates a pipeline over the API; its id. */
export async function createPipeline(t: TestServer, body: Record<string, unknown>): Promise<string> {
  const created = await t.fetch("/pipelines", { method: "POST", json: body });
  if (created.status !== 201) throw new Error(`pipeline not created: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { id: string }).id;
}

/** Triggers a pipeline over the API and waits for the run to end. */
export async function triggerAndWait(t: TestServer, pipelineId: string): Promise<RunView> {
  const run = (await (await t.fetch(`/pipelines/${pipelineId}/run`, { method: "POST", json: {} })).json()) as {
    id: string;
  };
  return waitForRun(t, run.id);
}

/** Creates a pipeline and runs it to its end. */
export async function runPipeline(
  t: TestServer,
  body: Record<string, unknown>,
): Promise<{ pipelineId: string; run: RunView }> {
  const pipelineId = await createPipeline(t, body);
  return { pipelineId, run: await triggerAndWait(t, pipelineId) };
}

/** A client of the real /ws endpoint subscribed to one pipeline; keeps every raw message. */
export async function subscribe(t: TestServer, pipelineId: string): Promise<{ raw: string[]; close(): void }> {
  const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`);
  const raw: string[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.once("error", reject);
    ws.once("open", () => resolve());
  });
  const subscribed = new Promise<void>((resolve) =>
    ws.on("message", (data) => {
      const text = data.toString();
      raw.push(text);
      if ((JSON.parse(text) as { type: string }).type === "subscribed") resolve();
    }),
  );
  ws.send(JSON.stringify({ type: "subscribe", pipeline_id: pipelineId }));
  await subscribed;
  return { raw, close: () => ws.close() };
}
