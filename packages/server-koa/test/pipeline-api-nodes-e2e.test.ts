import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

/** A local API: paged orders on GET, and a recorder for POSTs. */
let peer: http.Server;
let base: string;
const posts: { path: string; body: unknown; auth?: string }[] = [];
let t: TestServer;

beforeAll(async () => {
  peer = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      if (req.method === "GET" && url.pathname === "/orders") {
        const page = Number(url.searchParams.get("page") ?? "1");
        const items =
          page <= 2
            ? [
                { id: page * 10 + 1, amount: 5 * page, region: "eu" },
                { id: page * 10 + 2, amount: 7, region: "us" },
              ]
            : [];
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { items } }));
        return;
      }
      if (req.method === "GET" && url.pathname === "/broken") {
        res.writeHead(503).end("down");
        return;
      }
      posts.push({ path: url.pathname, body: data ? JSON.parse(data) : null, auth: req.headers.authorization });
      res.writeHead(200).end("{}");
    });
  });
  await new Promise<void>((r) => peer.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  t = await startTestServer("sqlite");
  await t.fetch("/connections", {
    method: "POST",
    json: { conn_id: "shop-api", type: "http", host: base, login: "bot", password: "pw" },
  });
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => peer.close(r));
});

const run = async (body: Record<string, unknown>) => {
  const p = (await (await t.fetch("/pipelines", { method: "POST", json: body })).json()) as { id: string };
  const { id } = (await (await t.fetch(`/pipelines/${p.id}/run`, { method: "POST", json: {} })).json()) as {
    id: string;
  };
  return t.client.runs.wait(id, { timeoutMs: 20_000 });
};

describe("API, sql, condition, union, sink_api and notify nodes in real runs", () => {
  it("source_api (paged, connection auth) → union → sql → condition → sink_api in batches + notify", async () => {
    const result = await run({
      name: "api flow",
      nodes: [
        {
          id: "orders",
          type: "source_api",
          config: {
            conn_id: "shop-api",
            path: "/orders",
            rows_path: "data.items",
            page_param: "page",
            page_size: 2,
            max_pages: 5,
          },
        },
        { id: "extra", type: "code", config: { code: "return [{ id: 99, amount: 1, region: 'eu' }];" } },
        { id: "all", type: "union", config: {} },
        {
          id: "totals",
          type: "sql",
          config: {
            sql: "select region, sum(amount) as total, count(*) as n from input group by region order by region",
          },
        },
        { id: "enough", type: "condition", config: { expression: "row_count >= 2" } },
        { id: "push", type: "sink_api", config: { url: `${base}/ingest`, batch_size: 1 } },
        {
          id: "tell",
          type: "notify",
          config: { url: `${base}/chat`, format: "slack", message: "{{pipeline}}: {{row_count}} regions" },
        },
      ],
      edges: [
        { from: "orders", to: "all" },
        { from: "extra", to: "all" },
        { from: "all", to: "totals" },
        { from: "totals", to: "enough" },
        { from: "enough", to: "push" },
        { from: "enough", to: "tell" },
      ],
    });
    expect(result.status).toBe("success");
    expect(result.node_runs.find((n) => n.node_id === "orders")?.row_count).toBe(4);
    expect(result.node_runs.find((n) => n.node_id === "push")?.row_count).toBe(2);
    const ingested = posts.filter((p) => p.path === "/ingest").map((p) => p.body);
    expect(ingested).toEqual([[{ region: "eu", total: 16, n: 3 }], [{ region: "us", total: 14, n: 2 }]]);
    expect(posts.find((p) => p.path === "/chat")?.body).toEqual({ text: "api flow: 2 regions" });
  });

  it("condition false skips every downstream node and the run still succeeds; a non-2xx source fails with the status", async () => {
    const skipped = await run({
      name: "gate closed",
      nodes: [
        { id: "gen", type: "code", config: { code: "return [{ a: 1 }];" } },
        { id: "gate", type: "condition", config: { expression: "row_count > 5" } },
        { id: "after", type: "sink_api", config: { url: `${base}/never` } },
      ],
      edges: [
        { from: "gen", to: "gate" },
        { from: "gate", to: "after" },
      ],
    });
    expect(skipped.status).toBe("success");
    expect(skipped.node_runs.find((n) => n.node_id === "after")?.status).toBe("skipped");
    expect(posts.some((p) => p.path === "/never")).toBe(false);

    const broken = await run({
      name: "broken api",
      nodes: [{ id: "get", type: "source_api", config: { url: `${base}/broken` } }],
    });
    expect(broken.status).toBe("failed");
    expect(broken.node_runs[0]?.error).toMatch(/503/);
  });

  it("a code node that loops forever is stopped by its timeout and the server keeps serving", async () => {
    const result = await run({
      name: "forever",
      nodes: [{ id: "spin", type: "code", config: { code: "for (;;) {}", timeout: 1 } }],
    });
    expect(result.status).toBe("failed");
    expect(result.node_runs[0]?.error).toMatch(/time/i);
    expect((await t.fetch("/health")).status).toBe(200);
  });
});
