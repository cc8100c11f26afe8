import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient } from "../../../src/engine/http/http-client.js";
import { sourceApiNode } from "../../../src/engine/nodes/source-api.js";
import { sourceApiConfig } from "../../../src/engine/nodes/source-api.js";
import { connectionsOf, nodeContext, startPeer, type PeerServer } from "../peer-server.js";

let peer: PeerServer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const run = (config: Record<string, unknown>, options: Parameters<typeof nodeContext>[1] = {}) => {
  const { ctx, logs } = nodeContext("source_api", options);
  return { logs, result: sourceApiNode.run(ctx, sourceApiConfig.parse(config), []) };
};

describe("source_api", () => {
  it("reads a top-level JSON array with rendered query and headers", async () => {
    peer = await startPeer(() => ({
      json: [
        { id: 1, name: "a" },
        { id: 2, name: "b" },
      ],
    }));
    const { result } = run(
      { url: `${peer.url}/orders`, query: { day: "${param.date}" }, headers: { "x-day": "${param.date}" } },
      { params: { date: "2026-01-02" } },
    );
    const { output } = await result;
    expect(output).toEqual({
      columns: ["id", "name"],
      rows: [
        { id: 1, name: "a" },
        { id: 2, name: "b" },
      ],
    });
    expect(peer.received[0]!.url).toBe("/orders?day=2026-01-02");
    expect(peer.received[0]!.headers["x-day"]).toBe("2026-01-02");
    expect(peer.received[0]!.method).toBe("GET");
  });

  it("reads a page of 300,000 rows (spread as arguments, 150,000 overflowed the stack)", async () => {
    peer = await startPeer(() => ({ json: Array.from({ length: 300_000 }, (_, i) => ({ i })) }));
    const { output } = await run({ url: peer.url }).result;
    expect(output.rows).toHaveLength(300_000);
    expect(output.rows.at(-1)).toEqual({ i: 299_999 });
  });

  it("finds rows at rows_path and sends a rendered JSON body", async () => {
    peer = await startPeer(() => ({ json: { data: { items: [{ x: 1 }] } } }));
    const { output } = await run(
      { url: peer.url, method: "POST", rows_path: "data.items", body: { since: "${param.d}" } },
      { params: { d: "d1" } },
    ).result;
    expect(output.rows).toEqual([{ x: 1 }]);
    expect(JSON.parse(peer.received[0]!.body)).toEqual({ since: "d1" });
    expect(peer.received[0]!.headers["content-type"]).toBe("application/json");
  });

  it('sends a body key "__proto__" as a key, rendered like any other', async () => {
    peer = await startPeer(() => ({ json: [] }));
    const body = JSON.parse('{"__proto__": {"since": "${param.d}"}, "n": 1}') as unknown;
    await run({ url: peer.url, method: "POST", body }, { params: { d: "d1" } }).result;
    expect(peer.received[0]!.body).toBe('{"__proto__":{"since":"d1"},"n":1}');
  });

  it("fails clearly when rows_path holds no array", async () => {
    peer = await startPeer(() => ({ json: { data: {} } }));
    await expect(run({ url: peer.url, rows_path: "data.items" }).result).rejects.toThrow(/no array at 'data.items'/);
  });

  it("follows next_url_path until it is empty", async () => {
    peer = await startPeer((req) => {
      const page = Number(new URL(req.url, "http://x").searchParams.get("p") ?? "1");
      return { json: { items: [{ page }], next: page < 3 ? `/list?p=${page + 1}` : null } };
    });
    const { output } = await run({ url: `${peer.url}/list`, rows_path: "items", next_url_path: "next" }).result;
    expect(output.rows).toEqual([{ page: 1 }, { page: 2 }, { page: 3 }]);
    expect(peer.received).toHaveLength(3);
  });

  it("pages with page_param and page_size until a short page, and with offset_param", async () => {
    const all = Array.from({ length: 5 }, (_, i) => ({ i }));
    peer = await startPeer((req) => {
      const q = new URL(req.url, "http://x").searchParams;
      if (q.has("page")) {
        const page = Number(q.get("page"));
        return { json: all.slice((page - 1) * 2, page * 2) };
      }
      const offset = Number(q.get("offset"));
      return { json: all.slice(offset, offset + Number(q.get("limit"))) };
    });
    const paged = await run({ url: peer.url, page_param: "page", page_size: 2 }).result;
    expect(paged.output.rows).toEqual(all);
    expect(peer.received.map((r) => r.url)).toEqual(["/?page=1", "/?page=2", "/?page=3"]);
    const offsets = await run({ url: peer.url, offset_param: "offset", page_size: 2, page_size_param: "limit" }).result;
    expect(offsets.output.rows).toEqual(all);
  });

  it("stops at max_pages", async () => {
    peer = await startPeer(() => ({ json: { items: [{ a: 1 }], next: "/again" } }));
    const { result, logs } = run({ url: peer.url, rows_path: "items", next_url_path: "next", max_pages: 4 });
    expect((await result).output.rows).toHaveLength(4);
    expect(peer.received).toHaveLength(4);
    expect(logs.some((l) => l.level === "warning" && /max_pages/.test(l.message))).toBe(true);
  });

  it("fails on a non-2xx answer with the status in the log and the error", async () => {
    peer = await startPeer(() => ({ status: 503, json: { error: "down" } }));
    const { result, logs } = run({ url: `${peer.url}/x?token=abc` });
    await expect(result).rejects.toThrow(/returned HTTP 503/);
    const line = logs.find((l) => l.level === "error");
    expect(line?.message).toMatch(/HTTP 503/);
    expect(line?.message).not.toContain("token=abc");
  });

  it("honours the node timeout", async () => {
    peer = await startPeer(() => ({ hang: true }));
    await expect(run({ url: peer.url }, { timeoutMs: 300 }).result).rejects.toThrow(/timed out/);
  });

  it("takes base URL and basic auth from an http connection", async () => {
    peer = await startPeer(() => ({ json: [{ ok: 1 }] }));
    const secrets = connectionsOf([
      { conn_id: "api", host: peer.url, login: "ann", password: "pw", extra: { headers: { "X-Tenant": "t1" } } },
    ]);
    await run({ conn_id: "api", path: "/v1/items" }, { secrets }).result;
    const got = peer.received[0]!;
    expect(got.url).toBe("/v1/items");
    expect(got.headers.authorization).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`);
    expect(got.headers["x-tenant"]).toBe("t1");
  });

  it("uses a bearer token from extra.token, or the password without a login", async () => {
    peer = await startPeer(() => ({ json: [] }));
    const secrets = connectionsOf([
      { conn_id: "tok", host: peer.url, extra: { token: "T1" } },
      { conn_id: "pw", host: "127.0.0.1", port: peer.port, schema: "http", password: "P2" },
    ]);
    await run({ conn_id: "tok" }, { secrets }).result;
    await run({ conn_id: "pw", path: "items" }, { secrets }).result;
    expect(peer.received.map((r) => r.headers.authorization)).toEqual(["Bearer T1", "Bearer P2"]);
    expect(peer.received[1]!.url).toBe("/items");
  });

  it("refuses a connection of another type and an unknown connection", async () => {
    const secrets = connectionsOf([{ conn_id: "db", type: "postgres", host: "127.0.0.1" }]);
    await expect(run({ conn_id: "db" }, { secrets }).result).rejects.toThrow(/not http/);
    await expect(run({ conn_id: "nope" }, { secrets }).result).rejects.toThrow(/unknown connection 'nope'/);
  });

  it("never reaches a metadata address, directly or through a name that resolves there", async () => {
    const asked: string[] = [];
    const http = createHttpClient({
      resolver: async (h) => {
        asked.push(h);
        return [{ address: "169.254.169.254", family: 4 }];
      },
    });
    await expect(run({ url: "http://169.254.169.254/latest/meta-data/" }, { http }).result).rejects.toThrow(
      /cloud-metadata/,
    );
    await expect(run({ url: "http://metadata.test/latest/" }, { http }).result).rejects.toThrow(
      /'metadata.test' resolves to/,
    );
    expect(asked).toEqual(["metadata.test"]);
  });

  it("validation reports a missing url/conn_id", () => {
    const r = sourceApiConfig.safeParse({ rows_path: "x" });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/url or conn_id is required/);
  });
});
