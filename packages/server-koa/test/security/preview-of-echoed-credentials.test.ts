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
  peer = await startPeer((req) => ({ json: [{ auth: req.headers.authorization ?? "", echoed: `token=${TOKEN}` }] }));
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
});
