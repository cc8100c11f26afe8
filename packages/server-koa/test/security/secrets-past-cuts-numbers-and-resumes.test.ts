/**
 * Attacks found by a helper on 2026-11-27 (each test fails without its fix): secrets that left in clear
 * - in a resumed run: the nodes it did not run again never told its scrubber their secrets, which their kept output
 *   holds, so the previews and DLQ entries of the nodes after them showed those secrets;
 * - across the cut of an error's excerpt: a remote's answer or a driver's message was cut to 200 / 500 characters
 *   before it was masked, so a URL padded to put the cut inside a secret showed all of it but its last characters;
 * - as numbers and bytes: masking looked at text only.
 * Everything checked here is readable by a viewer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPeer, type PeerServer } from "../../../core/test/engine/peer-server.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline, waitForRun } from "./attack-support.js";

const TOKEN = "tok-5e4d3c2b1a09f8e7";
const SECRET = "Zq7SecretVal99";
const PIN = "90817263";
let t: TestServer;
let peer: PeerServer;
let flaky = 0;

beforeAll(async () => {
  peer = await startPeer((req) => {
    const url = new URL(req.url, "http://peer");
    if (url.pathname === "/items") return { json: [{ id: 1, auth: req.headers.authorization ?? "" }] };
    if (url.pathname === "/flaky") return (flaky += 1) === 1 ? { status: 500, json: {} } : { json: {} };
    if (url.pathname === "/down") return { status: 500, json: {} };
    if (url.pathname === "/pin") return { json: [{ pin: Number(url.searchParams.get("pin")) }] };
    return { status: 404, text: `Cannot GET ${req.url}` };
  });
  t = await startTestServer("sqlite");
  for (const [key, value] of [
    ["S1", SECRET],
    ["PIN", PIN],
  ])
    expect((await t.fetch("/variables", { method: "POST", json: { key, value, type: "secret" } })).status).toBe(201);
  const connections = [
    { conn_id: "echo", type: "http", host: peer.url, extra: JSON.stringify({ token: TOKEN }) },
    { conn_id: "mem", type: "sqlite", host: ":memory:" },
  ];
  for (const c of connections) expect((await t.fetch("/connections", { method: "POST", json: c })).status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

/** Everything a viewer can read of a run: the run and its node errors, its log, each node's preview and profile. */
async function readable(runId: string, pipelineId: string, nodes: string[]): Promise<string> {
  const texts = [
    await (await t.fetch(`/runs/${runId}`)).text(),
    await (await t.fetch(`/runs/${runId}/logs`)).text(),
    await (await t.fetch(`/pipelines/${pipelineId}/dlq`)).text(),
  ];
  for (const node of nodes) {
    texts.push(await (await t.fetch(`/runs/${runId}/nodes/${node}/preview`)).text());
    texts.push(await (await t.fetch(`/runs/${runId}/nodes/${node}/profile`)).text());
  }
  return texts.join("\n");
}

const pieces = (secret: string) => Array.from({ length: secret.length - 2 }, (_, i) => secret.slice(0, i + 3));

describe("attack: secrets in a resumed run", () => {
  it("are masked in the previews and DLQ entries of the nodes after those it did not run again", async () => {
    const { pipelineId, run } = await runPipeline(t, {
      name: "resume after a flaky sink",
      nodes: [
        { id: "api", type: "source_api", config: { conn_id: "echo", path: "/items" } },
        { id: "push", type: "sink_api", config: { url: `${peer.url}/flaky`, method: "POST" } },
        { id: "copy", type: "transform", config: { rules: [] } },
      ],
      edges: [
        { from: "api", to: "push" },
        { from: "api", to: "copy" },
      ],
    });
    expect(run.status).toBe("failed");
    expect((await t.fetch(`/runs/${run.id}/resume`, { method: "POST", json: {} })).status).toBe(202);
    const resumed = await waitForRun(t, run.id);
    expect(resumed.status, JSON.stringify(resumed)).toBe("success");
    const text = await readable(run.id, pipelineId, ["api", "push", "copy"]);
    expect(text).toContain("skipped on resume"); // api was not run again: its output came from the store
    expect(text).toContain("********");
    expect(text).not.toContain(TOKEN);
  });

  it("are masked even when the pipeline was edited between the failure and the resume", async () => {
    const body = (minRows: number, withConnection: boolean) => ({
      name: "edited before the resume",
      nodes: [
        {
          id: "api",
          type: "source_api",
          config: withConnection ? { conn_id: "echo", path: "/items" } : { url: `${peer.url}/items` },
        },
        { id: "check", type: "quality", config: { checks: [{ type: "row_count", min: minRows }] } },
      ],
      edges: [{ from: "api", to: "check" }],
    });
    const { pipelineId, run } = await runPipeline(t, body(2, true));
    expect(run.status).toBe("failed");
    // the editor takes the connection out of the node that will not run again, and lets the check pass
    expect((await t.fetch(`/pipelines/${pipelineId}`, { method: "PUT", json: body(1, false) })).status).toBe(200);
    expect((await t.fetch(`/runs/${run.id}/resume`, { method: "POST", json: {} })).status).toBe(202);
    expect((await waitForRun(t, run.id)).status).toBe("success");
    const text = await readable(run.id, pipelineId, ["api", "check"]);
    expect(text).toContain("skipped on resume");
    expect(text).not.toContain(TOKEN);
  });

  it("are masked in a DLQ entry written by the resumed attempt", async () => {
    const { pipelineId, run } = await runPipeline(t, {
      name: "resume into a sink that stays down",
      nodes: [
        { id: "api", type: "source_api", config: { conn_id: "echo", path: "/items" } },
        { id: "dead", type: "sink_api", config: { url: `${peer.url}/down`, method: "POST" } },
      ],
      edges: [{ from: "api", to: "dead" }],
    });
    expect(run.status).toBe("failed");
    expect((await t.fetch(`/runs/${run.id}/resume`, { method: "POST", json: {} })).status).toBe(202);
    expect((await waitForRun(t, run.id)).status).toBe("failed");
    const dlq = (await (await t.fetch(`/pipelines/${pipelineId}/dlq`)).json()) as unknown[];
    expect(dlq.length).toBe(2); // one entry per attempt of the run
    expect(JSON.stringify(dlq)).not.toContain(TOKEN);
  });
});

describe("attack: a secret variable chosen to overlap a connection's token", () => {
  it("cannot use up the token's start so that the rest of it shows", async () => {
    expect(
      (await t.fetch("/variables", { method: "POST", json: { key: "PRE", value: "Bearer tok-", type: "secret" } }))
        .status,
    ).toBe(201);
    const { pipelineId, run } = await runPipeline(t, {
      name: "overlap",
      nodes: [
        {
          id: "api",
          type: "source_api",
          config: { conn_id: "echo", path: "/items", headers: { "x-pre": "${var.PRE}" } },
        },
      ],
      edges: [],
    });
    expect(run.status, JSON.stringify(run)).toBe("success");
    const text = await readable(run.id, pipelineId, ["api"]);
    expect(text).toContain("********");
    expect(text).not.toContain(TOKEN.slice("tok-".length));
  });
});

describe("attack: a secret across the cut of an error's excerpt", () => {
  it.each([172, 176, 180])(
    "an HTTP answer quoting the URL, padded by %i characters, shows no piece of it",
    async (n) => {
      const { pipelineId, run } = await runPipeline(t, {
        name: `cut http ${n}`,
        nodes: [{ id: "get", type: "source_api", config: { url: `${peer.url}/fail/${"A".repeat(n)}\${var.S1}` } }],
        edges: [],
      });
      expect(run.status).toBe("failed");
      const text = await readable(run.id, pipelineId, []);
      expect(text).toContain("HTTP 404");
      for (const piece of pieces(SECRET)) expect(text, piece).not.toContain(piece);
    },
  );

  it.each([470, 474, 478])(
    "a driver's message quoting it, padded by %i characters, shows no piece of it",
    async (n) => {
      const query = `SELECT json_extract('{}', '${"A".repeat(n)}' || \${var.S1}) AS v`;
      const { pipelineId, run } = await runPipeline(t, {
        name: `cut sql ${n}`,
        nodes: [{ id: "q", type: "source_db", config: { conn_id: "mem", query } }],
        edges: [],
      });
      expect(run.status).toBe("failed");
      const text = await readable(run.id, pipelineId, []);
      expect(text).toMatch(/JSON path/i);
      for (const piece of pieces(SECRET)) expect(text, piece).not.toContain(piece);
    },
  );
});

describe("attack: a secret that arrives as a number or as bytes", () => {
  it("a PIN sent unquoted and echoed as a number is masked in the preview and profile", async () => {
    const { pipelineId, run } = await runPipeline(t, {
      name: "pin as a number",
      nodes: [{ id: "pin", type: "source_api", config: { url: `${peer.url}/pin`, query: { pin: "${var.PIN}" } } }],
      edges: [],
    });
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(peer.received.at(-1)?.url).toContain(PIN); // it reached the API, and came back as a number
    const text = await readable(run.id, pipelineId, ["pin"]);
    expect(text).toContain("********");
    expect(text).not.toContain(PIN);
  });

  it("a secret past a double's precision, echoed as a number and so rounded, is masked too", async () => {
    const longPin = "12345678901234567890123";
    const created = await t.fetch("/variables", {
      method: "POST",
      json: { key: "LONGPIN", value: longPin, type: "secret" },
    });
    expect(created.status).toBe(201);
    const { pipelineId, run } = await runPipeline(t, {
      name: "long pin as a number",
      nodes: [{ id: "pin", type: "source_api", config: { url: `${peer.url}/pin`, query: { pin: "${var.LONGPIN}" } } }],
      edges: [],
    });
    expect(run.status, JSON.stringify(run)).toBe("success");
    const text = await readable(run.id, pipelineId, ["pin"]);
    expect(text).toContain("********");
    // shown as 1.2345678901234568e+22 it gave all but the last six digits
    expect(text).not.toContain("2345678901234");
  });

  it("a secret cast to a BLOB is not shown as its bytes", async () => {
    const { pipelineId, run } = await runPipeline(t, {
      name: "secret as a blob",
      nodes: [{ id: "q", type: "source_db", config: { conn_id: "mem", query: "SELECT CAST(${var.S1} AS BLOB) AS b" } }],
      edges: [],
    });
    expect(run.status, JSON.stringify(run)).toBe("success");
    const preview = await (await t.fetch(`/runs/${run.id}/nodes/q/preview`)).text();
    expect(preview).toContain(`<binary: ${SECRET.length} bytes>`);
    const bytes = [...Buffer.from(SECRET)].join(",");
    expect(await readable(run.id, pipelineId, ["q"])).not.toContain(bytes);
  });
});
