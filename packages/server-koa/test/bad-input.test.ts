import http from "node:http";
import net from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

let t: TestServer;
let existingId: string;
beforeAll(async () => {
  t = await startTestServer("sqlite");
  existingId = (
    await t.client.pipelines.create({
      name: "existing",
      nodes: [{ id: "a", type: "sink_file", config: { path: "x.csv" } }],
    })
  ).id;
});
afterAll(async () => t?.close());

async function expectJsonError(res: Response, status: number, pattern?: RegExp): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(typeof body.error).toBe("string");
  if (pattern) expect(body.error).toMatch(pattern);
  return body;
}

const node = (id: string, type = "transform") => ({ id, type, config: { rules: [] } });

describe("pipeline validation rules (SPEC part 7) reject create with 400 and a list of errors", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["empty name", { name: "" }, /name must not be empty/],
    ["blank name", { name: "   " }, /name must not be empty/],
    ["name over 255", { name: "x".repeat(256) }, /at most 255/],
    ["duplicate node ids", { name: "d", nodes: [node("a"), node("a")] }, /duplicate node id 'a'/],
    [
      "edge to a missing node",
      { name: "d", nodes: [node("a")], edges: [{ from: "a", to: "ghost" }] },
      /missing node 'ghost'/,
    ],
    [
      "cycle",
      {
        name: "d",
        nodes: [node("a"), node("b"), node("c")],
        edges: [
          { from: "a", to: "b" },
          { from: "b", to: "c" },
          { from: "c", to: "a" },
        ],
      },
      /cycle/,
    ],
    ["self loop", { name: "d", nodes: [node("a")], edges: [{ from: "a", to: "a" }] }, /itself/],
    ["invalid cron", { name: "d", schedule: "61 * * * *" }, /invalid cron/],
    ["six-field cron", { name: "d", schedule: "0 0 * * * *" }, /expected 5 fields/],
    ["day of week 7 (0-6, Sunday = 0)", { name: "d", schedule: "0 0 * * 7" }, /day of week 7/],
    ["day of week range up to 7", { name: "d", schedule: "0 0 * * 5-7" }, /day of week 7/],
    ["256 emoji", { name: "😀".repeat(256) }, /at most 255/],
    ["wrong field type", { name: "d", tags: "x" }, /tags/],
    ["missing name", {}, /name/],
    ["invalid timezone", { name: "d", schedule: "0 * * * *", schedule_timezone: "Mars/Olympus" }, /invalid timezone/],
    [
      "more than 500 nodes",
      { name: "d", nodes: Array.from({ length: 501 }, (_, i) => node(`n${i}`)) },
      /at most 500 nodes/,
    ],
    ["bad sla_deadline", { name: "d", sla_deadline: "25:00" }, /sla_deadline/],
    ["bad sla_timezone", { name: "d", sla_deadline: "06:00", sla_timezone: "Nowhere/City" }, /invalid timezone/],
    ["unknown node type", { name: "d", nodes: [node("a", "teleport")] }, /unknown node type 'teleport'/],
    ["depends_on a missing pipeline", { name: "d", depends_on: ["no-such-pipeline"] }, /missing pipeline/],
    // each copy of an edge fed its node the same input once more: 5,000 copies into a union made 10 million rows
    // on the server's thread (an editor's denial of service, found by a helper's attack)
    [
      "the same edge given many times",
      {
        name: "d",
        nodes: [node("a"), { id: "b", type: "union", config: {} }],
        edges: Array.from({ length: 5000 }, () => ({ from: "a", to: "b" })),
      },
      /edge 'a' → 'b' is given 5000 times/,
    ],
  ];
  it.each(cases)("%s", async (_label, body, pattern) => {
    const res = await t.fetch("/pipelines", { method: "POST", json: body });
    const err = await expectJsonError(res, 400);
    expect(Array.isArray(err.errors)).toBe(true);
    expect((err.errors as string[]).join("\n")).toMatch(pattern);
  });

  it("names are counted in characters, and day-of-week steps are not days", async () => {
    expect((await t.fetch("/pipelines", { method: "POST", json: { name: "😀".repeat(255) } })).status).toBe(201);
    expect(
      (await t.fetch("/pipelines", { method: "POST", json: { name: "steps", schedule: "0 0 * * 0-6/2" } })).status,
    ).toBe(201);
  });

  it("exactly 255 characters and 500 nodes are accepted", async () => {
    const res = await t.fetch("/pipelines", {
      method: "POST",
      json: { name: "n".repeat(255), nodes: Array.from({ length: 500 }, (_, i) => node(`n${i}`)) },
    });
    expect(res.status).toBe(201);
  });

  it("the same rules hold on update, and a rejected update changes nothing", async () => {
    const res = await t.fetch(`/pipelines/${existingId}`, { method: "PUT", json: { name: "", schedule: "bad" } });
    const err = await expectJsonError(res, 400);
    expect((err.errors as string[]).length).toBe(2);
    expect((await t.client.pipelines.get(existingId)).name).toBe("existing");
    expect((await t.client.pipelines.versions(existingId)).length).toBe(1);
  });

  it("a dependency cycle between pipelines is rejected", async () => {
    const a = await t.client.pipelines.create({ name: "dep-a" });
    const b = await t.client.pipelines.create({ name: "dep-b", depends_on: [a.id] });
    const res = await t.fetch(`/pipelines/${a.id}`, { method: "PUT", json: { depends_on: [b.id] } });
    const err = await expectJsonError(res, 400);
    expect((err.errors as string[]).join()).toMatch(/cycle/);
  });
});

describe("malformed and hostile input is a JSON 4xx, never a 500", () => {
  it("malformed JSON → 400", async () => {
    const res = await t.fetch("/pipelines", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":',
    });
    await expectJsonError(res, 400, /malformed JSON/);
  });

  it("wrong types → 400 naming the field", async () => {
    await expectJsonError(await t.fetch("/pipelines", { method: "POST", json: { name: 42 } }), 400, /name/);
    await expectJsonError(
      await t.fetch("/pipelines", { method: "POST", json: { name: "x", nodes: "nope" } }),
      400,
      /nodes/,
    );
    await expectJsonError(
      await t.fetch("/pipelines", { method: "POST", json: { name: "x", params: { a: 1 } } }),
      400,
      /params/,
    );
    await expectJsonError(await t.fetch("/pipelines", { method: "POST", json: [1, 2] }), 400);
    await expectJsonError(
      await t.fetch("/pipelines", { method: "POST", json: { name: "x", edges: [{ from: "a" }] } }),
      400,
      /edges/,
    );
  });

  it("unknown top-level fields are rejected so typos do not pass silently", async () => {
    await expectJsonError(
      await t.fetch("/pipelines", { method: "POST", json: { name: "x", shedule: "* * * * *" } }),
      400,
      /shedule/,
    );
  });

  it("a body over 10 MiB → 413; an import over 5 MiB → 413", async () => {
    const big = JSON.stringify({ name: "big", description: "x".repeat(10 * 1024 * 1024 + 10) });
    await expectJsonError(
      await t.fetch("/pipelines", { method: "POST", headers: { "content-type": "application/json" }, body: big }),
      413,
    );
    const mid = JSON.stringify({ name: "mid", description: "x".repeat(6 * 1024 * 1024) });
    await expectJsonError(
      await t.fetch("/pipelines/import", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: mid,
      }),
      413,
    );
  });

  it("integers beyond the safe range are clamped like any large value, not refused", async () => {
    const huge = "99999999999999999999";
    const page = await t.fetch(`/pipelines?page=${huge}&per_page=${huge}`);
    expect(page.status).toBe(200);
    expect(await page.json()).toMatchObject({ items: [], per_page: 500 });
    const calendar = await t.fetch(`/runs/calendar?days=${huge}`);
    expect(calendar.status).toBe(200);
    expect(((await calendar.json()) as unknown[]).length).toBe(365);
  });

  it("purge days: a negative value is refused with a message that says so", async () => {
    await expectJsonError(await t.fetch("/system/purge", { method: "POST", json: { days: -1 } }), 400, /0 or more/);
  });

  it("non-numeric, zero and negative page values → 400", async () => {
    for (const q of ["page=abc", "page=0", "per_page=-1", "per_page=1.5", "page=1e3"]) {
      await expectJsonError(await t.fetch(`/pipelines?${q}`), 400);
    }
  });

  it("unknown ids → 404 on every pipeline route", async () => {
    const id = "00000000-0000-0000-0000-000000000000";
    const routes: [string, string, unknown?][] = [
      ["GET", `/pipelines/${id}`],
      ["PUT", `/pipelines/${id}`, { enabled: false }],
      ["DELETE", `/pipelines/${id}`],
      ["POST", `/pipelines/${id}/clone`],
      ["GET", `/pipelines/${id}/export`],
      ["GET", `/pipelines/${id}/validate`],
      ["POST", `/pipelines/${id}/validate-nodes`, {}],
      ["GET", `/pipelines/${id}/versions`],
      ["POST", `/pipelines/${id}/rollback`, { version_id: "x" }],
    ];
    for (const [method, path, json] of routes) {
      await expectJsonError(await t.fetch(path, { method, json }), 404);
    }
  });

  it("unknown routes → 404 JSON; wrong method → 405 JSON", async () => {
    await expectJsonError(await t.fetch("/no/such/route"), 404);
    await expectJsonError(await t.fetch("/system/info", { method: "DELETE" }), 405);
  });

  it("a method no route has → 404 JSON (an unknown route), not a 500 (sent with node:http: fetch refuses TRACE)", async () => {
    for (const method of ["TRACE", "PROPFIND", "MKCOL", "LOCK"])
      for (const path of ["/health", "/api/pipelines", "/pipelines", "/api/no/such/route"]) {
        const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = http.request(`${t.baseUrl}${path}`, { method }, (res) => {
            let text = "";
            res.on("data", (chunk: Buffer) => (text += chunk.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
          });
          req.on("error", reject);
          req.end();
        });
        expect([method, path, status]).toEqual([method, path, 404]);
        expect(JSON.parse(body)).toEqual({ error: `route not found: ${method} ${path}`, code: "not_found" });
      }
  });

  it("text with a lone surrogate is refused, not echoed as sent and stored as something else", async () => {
    // found by a helper's attack: the 201 echoed "x\ud800y", a later GET returned "x\ufffd\ufffd\ufffdy"
    for (const [path, body] of [
      ["/variables", '{"key":"lone","value":"x\\ud800y","type":"string"}'],
      ["/pipelines", '{"name":"half \\udfff"}'],
      ["/pipelines", '{"name":"key","tags":["ok"],"params":{"\\ud83d":"x"}}'],
      ["/auth/users", '{"username":"lone","password":"\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800\\ud800"}'],
    ]) {
      const res = await t.fetch(path!, { method: "POST", headers: { "content-type": "application/json" }, body });
      await expectJsonError(res, 400, /not valid Unicode/);
    }
    expect((await t.fetch("/variables/lone")).status).toBe(404);
    // a whole character written as its surrogate pair is fine
    const res = await t.fetch("/variables", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"key":"pair","value":"x\\ud83d\\ude00y","type":"string"}',
    });
    expect(res.status).toBe(201);
    expect(((await (await t.fetch("/variables/pair")).json()) as { value: string }).value).toBe("x😀y");
  });

  it("a malformed JSON body's error does not quote the body (it may hold a password)", async () => {
    for (const body of ['{"password":SuperSecretPassw0rd}', '{"username":"a","password":"Hunter2Hunter2\u0001"}']) {
      const res = await t.fetch("/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const err = await expectJsonError(res, 400, /malformed JSON body/);
      expect(JSON.stringify(err)).not.toMatch(/Super|Secret|Passw|Hunter|password/);
    }
  });

  it("an unknown Content-Encoding → 415 in the API's error shape, naming the encodings that work", async () => {
    const res = await t.fetch("/pipelines", {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "compress" },
      body: '{"name":"x"}',
    });
    const err = await expectJsonError(res, 415, /Content-Encoding.*gzip/);
    expect(err.code).toBe("bad_request");
  });

  it("requests Node's parser refuses get the API's error shape too (raw bytes, oversized headers)", async () => {
    const { port } = new URL(t.baseUrl);
    const raw = (request: Buffer) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), "127.0.0.1", () => socket.end(request));
        let text = "";
        socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
        socket.on("close", () => resolve(text));
        socket.on("error", reject);
      });
    const badBytes = await raw(
      Buffer.concat([
        Buffer.from("GET /api/h"),
        Buffer.from([0xff, 0x00]),
        Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n"),
      ]),
    );
    expect(badBytes).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(badBytes.slice(badBytes.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "bad_request" });
    const longUrl = await raw(Buffer.from(`GET /api/pipelines?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(longUrl).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(longUrl.slice(longUrl.indexOf("\r\n\r\n") + 4)).error).toMatch(/too large/);
  });

  it("a refused WebSocket upgrade answers in the API's error shape", async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${t.baseUrl}/no-such-socket`, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on("upgrade", () => reject(new Error("upgraded")));
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ code: "not_found" });
  });

  it("a node timeout in config over 7 days is refused at trigger, not an attempt that times out at once", async () => {
    const p = await t.client.pipelines.create({
      name: "long-timeout",
      nodes: [{ id: "a", type: "transform", config: { rules: [], timeout: 30 * 24 * 3600 } }],
    });
    const res = await t.fetch(`/pipelines/${p.id}/run`, { method: "POST", json: {} });
    const err = await expectJsonError(res, 422);
    expect(JSON.stringify(err.errors)).toMatch(/timeout/);
  });

  it.each(["gzip", "deflate", "br"])(
    "a body that is not in its Content-Encoding (%s) → 400, even to anyone",
    async (enc) => {
      for (const path of ["/pipelines", "/auth/login"]) {
        const res = await t.fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json", "content-encoding": enc },
          body: `{"username":"a","password":"not ${enc} at all"}`,
        });
        await expectJsonError(res, 400, /Content-Encoding/);
      }
    },
  );

  it("a body nested thousands of levels deep → 400, and nothing is stored", async () => {
    const deep = `${'{"x":'.repeat(5000)}1${"}".repeat(5000)}`;
    const body = `{"name":"deep","nodes":[{"id":"n","type":"code","config":{"code":"return []","extra":${deep}}}]}`;
    const before = (await t.client.pipelines.list()).length;
    const res = await t.fetch("/pipelines", { method: "POST", headers: { "content-type": "application/json" }, body });
    await expectJsonError(res, 400, /nests deeper than 100 levels/);
    expect((await t.client.pipelines.list()).length).toBe(before);
  });

  it("random JSON bodies on every write route never produce a 5xx", async () => {
    const routes: [string, string][] = [
      ["POST", "/pipelines"],
      ["PUT", `/pipelines/${existingId}`],
      ["POST", "/pipelines/import"],
      ["POST", "/pipelines/bulk"],
      ["POST", `/pipelines/${existingId}/rollback`],
      ["POST", `/pipelines/${existingId}/validate-nodes`],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.jsonValue({ maxDepth: 3 }), async ([method, path], json) => {
        const res = await t.fetch(path, { method, json });
        await res.arrayBuffer();
        return res.status < 500;
      }),
      { numRuns: 150 },
    );
  });
});
