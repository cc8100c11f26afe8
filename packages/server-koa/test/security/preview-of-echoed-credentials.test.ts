import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPeer, type PeerServer } from "../../../core/test/engine/peer-server.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { runPipeline } from "./attack-support.js";

/*
 * The attack: an editor points source_api, with a stored connection, at an API that answers with the request's own
 * headers, so the connection's token lands in the rows. Node previews and profiles are readable by viewers; the
 * token must be masked there like everywhere else a run writes.
 */
const TOKEN = "tok-9f8e7d6c5b4a3928";
let t: TestServer;
let peer: PeerServer;
beforeAll(async () => {
  peer = await startPeer((req) => ({
    json: [
      // the second path's rows also carry a "__proto__" key: a node that built rows by assignment made the parsed
      // object the row's prototype, and the preview passed such a row through unmasked
      req.url?.startsWith("/proto")
        ? JSON.parse(`{"__proto__":{"x":1},"auth":${JSON.stringify(req.headers.authorization ?? "")}}`)
        : req.url?.startsWith("/keyed")
          ? // some APIs key their data by what they received: the token becomes a column name
            { [String(req.headers.authorization ?? "").replace("Bearer ", "")]: 1, checked: null }
          : { auth: req.headers.authorization ?? "", echoed: `token=${TOKEN}` },
    ],
  }));
  t = await startTestServer("sqlite");
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

describe("attack: an API that echoes the connection's credentials into the rows", () => {
  it("masks them in the node preview and profile", async () => {
    const connection = {
      conn_id: "echo",
      type: "http",
      host: peer.url,
      extra: JSON.stringify({ token: TOKEN }),
    };
    expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
    const { run } = await runPipeline(t, {
      name: "echo credentials",
      nodes: [{ id: "api", type: "source_api", config: { conn_id: "echo", path: "/items" } }],
      edges: [],
    });
    expect(run.status).toBe("success");
    expect(peer.received[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const preview = await (await t.fetch(`/runs/${run.id}/nodes/api/preview`)).text();
    const profile = await (await t.fetch(`/runs/${run.id}/nodes/api/profile`)).text();
    expect(preview).toContain("********");
    expect(preview).not.toContain(TOKEN);
    expect(profile).not.toContain(TOKEN);
  });

  it('masks them, and keeps a "__proto__" column, through union, join and aggregate', async () => {
    const connection = { conn_id: "echo2", type: "http", host: peer.url, extra: JSON.stringify({ token: TOKEN }) };
    expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
    const api = (id: string) => ({ id, type: "source_api", config: { conn_id: "echo2", path: "/proto" } });
    const { run } = await runPipeline(t, {
      name: "echo credentials under __proto__",
      nodes: [
        api("api"),
        api("api2"),
        { id: "all", type: "union", config: {} },
        { id: "joined", type: "join", config: { on: "auth", how: "inner" } },
        {
          id: "grouped",
          type: "transform",
          config: {
            rules: [{ type: "aggregate", group_by: ["__proto__", "auth"], aggregations: [{ function: "count" }] }],
          },
        },
      ],
      edges: [
        { from: "api", to: "all" },
        { from: "api", to: "joined" },
        { from: "api2", to: "joined" },
        { from: "api", to: "grouped" },
      ],
    });
    expect(run.status, JSON.stringify(run)).toBe("success");
    for (const node of ["api", "all", "joined", "grouped"]) {
      const preview = await (await t.fetch(`/runs/${run.id}/nodes/${node}/preview`)).text();
      const profile = await (await t.fetch(`/runs/${run.id}/nodes/${node}/profile`)).text();
      expect(preview, node).not.toContain(TOKEN);
      expect(profile, node).not.toContain(TOKEN);
      expect(preview, node).toContain("********");
      expect(preview, node).toContain('__proto__":{"x":1}'); // the join names it api.__proto__ and api2.__proto__
    }
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("x");
  });

  it("masks them where they are the rows' keys: in the preview and in the DLQ payload", async () => {
    const connection = { conn_id: "echo4", type: "http", host: peer.url, extra: JSON.stringify({ token: TOKEN }) };
    expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
    const { run, pipelineId } = await runPipeline(t, {
      name: "echo credentials as keys",
      nodes: [
        { id: "api", type: "source_api", config: { conn_id: "echo4", path: "/keyed" } },
        {
          id: "check",
          type: "quality",
          config: { on_failure: "dlq", checks: [{ type: "not_null", column: "checked" }] },
        },
      ],
      edges: [{ from: "api", to: "check" }],
    });
    expect(peer.received.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const readable = [
      await (await t.fetch(`/runs/${run.id}/nodes/api/preview`)).text(),
      await (await t.fetch(`/runs/${run.id}/nodes/check/preview`)).text(),
      await (await t.fetch(`/runs/${run.id}/nodes/api/profile`)).text(),
      await (await t.fetch(`/pipelines/${pipelineId}/dlq`)).text(),
    ];
    expect(readable[3]).toContain("checked"); // the failing row reached the DLQ
    for (const text of readable) {
      expect(text).not.toContain(TOKEN);
      expect(text).toContain("********");
    }
  });

  it("masks them in a dry run's rows", async () => {
    const connection = { conn_id: "echo3", type: "http", host: peer.url, extra: JSON.stringify({ token: TOKEN }) };
    expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
    const pipeline = {
      name: "echo credentials, dry",
      nodes: [
        { id: "api", type: "source_api", config: { conn_id: "echo3", path: "/items" } },
        {
          id: "copy",
          type: "transform",
          config: { rules: [{ type: "add_column", name: "again", expression: "auth" }] },
        },
      ],
      edges: [{ from: "api", to: "copy" }],
    };
    const created = (await (await t.fetch("/pipelines", { method: "POST", json: pipeline })).json()) as { id: string };
    const response = await t.fetch(`/pipelines/${created.id}/dry-run`, { method: "POST", json: {} });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    expect(body).toContain("********");
    expect(body).not.toContain(TOKEN);
  });

  it("masks them where they are the rows' keys in a dry run: its columns as well as its rows", async () => {
    const connection = { conn_id: "echo5", type: "http", host: peer.url, extra: JSON.stringify({ token: TOKEN }) };
    expect((await t.fetch("/connections", { method: "POST", json: connection })).status).toBe(201);
    const pipeline = {
      name: "echo credentials as keys, dry",
      nodes: [{ id: "api", type: "source_api", config: { conn_id: "echo5", path: "/keyed" } }],
      edges: [],
    };
    const created = (await (await t.fetch("/pipelines", { method: "POST", json: pipeline })).json()) as { id: string };
    const response = await t.fetch(`/pipelines/${created.id}/dry-run`, { method: "POST", json: {} });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    const api = (JSON.parse(body) as Record<string, { columns: string[]; rows: Record<string, unknown>[] }>).api!;
    expect(api.columns).toEqual(["********", "checked"]);
    expect(Object.keys(api.rows[0]!)).toEqual(["********", "checked"]);
    expect(body).not.toContain(TOKEN);
  });
});
