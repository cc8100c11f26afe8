import type { Role } from "@sluice/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPeer, type PeerServer } from "../../../core/test/engine/peer-server.js";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { bearer, usersPerRole } from "../auth/users.js";
import { waitForRun } from "./attack-support.js";

/*
 * The attack: an admin stores an HTTP API whose key travels in the URL (`host` = `…/v1?api_key=…`, as many APIs
 * want it) and a database URL with a password in it. A viewer, "trusted with nothing secret", reads the connection
 * list and uses search as an oracle, one guessed character at a time.
 */
const KEY = "HostKey2zz9q";
const PG_PASSWORD = "PgUrlPw7zz9";
let t: TestServer;
let peer: PeerServer;
let tokens: Record<Role, string>;

beforeAll(async () => {
  peer = await startPeer(() => ({ json: [{ ok: 1 }] }));
  t = await startTestServer("sqlite");
  tokens = await usersPerRole(t);
  const admin = bearer(tokens.admin);
  for (const connection of [
    { conn_id: "keyed-api", type: "http", host: `${peer.url}/v1?api_key=${KEY}` },
    { conn_id: "pg-url", type: "postgres", host: `postgres://u:${PG_PASSWORD}@127.0.0.1:1/db` },
  ]) {
    const res = await t.fetch("/connections", { method: "POST", headers: admin, json: connection });
    expect(res.status, await res.text()).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
  await peer?.close();
});

describe("attack: a viewer reads secrets written into a connection's host", () => {
  it("the list shows the host with its key and password masked", async () => {
    const res = await t.fetch("/connections", { headers: bearer(tokens.viewer) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(PG_PASSWORD);
    const hosts = Object.fromEntries(
      (JSON.parse(text) as { conn_id: string; host: string }[]).map((c) => [c.conn_id, c.host]),
    );
    expect(hosts["keyed-api"]).toBe(`${peer.url}/v1?api_key=********`);
    expect(hosts["pg-url"]).toBe("postgres://u:********@127.0.0.1:1/db");
  });

  it("search neither shows them nor answers guesses about them", async () => {
    const search = async (q: string) => {
      const res = await t.fetch(`/search?q=${encodeURIComponent(q)}`, { headers: bearer(tokens.viewer) });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return text;
    };
    const all = await search("127.0.0.1");
    expect(all).toContain("keyed-api");
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(PG_PASSWORD);
    for (const guess of [`api_key=${KEY.slice(0, 3)}`, KEY, PG_PASSWORD.slice(0, 5), `u:${PG_PASSWORD}`])
      expect(await search(guess), guess).not.toContain('"connection"');
  });

  it("an editor, who manages connections, still sees the host as stored; the key is still sent, after the path", async () => {
    const list = await (await t.fetch("/connections", { headers: bearer(tokens.editor) })).text();
    expect(list).toContain(`api_key=${KEY}`);
    const editor = bearer(tokens.editor);
    const pipeline = {
      name: "keyed api",
      nodes: [{ id: "api", type: "source_api", config: { conn_id: "keyed-api", path: "/items?page=1" } }],
      edges: [],
    };
    const created = (await (
      await t.fetch("/pipelines", { method: "POST", headers: editor, json: pipeline })
    ).json()) as {
      id: string;
    };
    const { id } = (await (
      await t.fetch(`/pipelines/${created.id}/run`, { method: "POST", headers: editor, json: {} })
    ).json()) as { id: string };
    const run = await waitForRun(t, id, editor);
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(peer.received.at(-1)?.url).toBe(`/v1/items?api_key=${KEY}&page=1`);
  });
});
