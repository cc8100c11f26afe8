import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "@sluice/core";
import { SluiceApiError } from "@sluice/client";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

const errorBody = async (res: Response) => (await res.json()) as { error: string; code: string };

describe("error bodies carry a stable code", () => {
  it("names the code for each kind of failure, from the one error-code table", async () => {
    const cases: [Promise<Response>, number, string][] = [
      [t.fetch("/no-such-route"), 404, "not_found"],
      [t.fetch("/pipelines/00000000-0000-0000-0000-000000000000"), 404, "not_found"],
      [
        t.fetch("/pipelines", { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" }),
        400,
        "bad_request",
      ],
      [t.fetch("/pipelines", { method: "POST", json: { name: "" } }), 400, "invalid"],
      [t.fetch("/auth/setup", { method: "DELETE" }), 405, "method_not_allowed"],
      [t.fetch("/pipelines", { method: "POST", json: { name: "x", nodes: "not a list" } }), 400, "bad_request"],
    ];
    for (const [request, status, code] of cases) {
      const res = await request;
      expect(res.status).toBe(status);
      const body = await errorBody(res);
      expect(typeof body.error).toBe("string");
      expect([code, ...(status === 400 ? ["bad_request", "invalid"] : [])]).toContain(body.code);
      expect(ERROR_CODES).toContain(body.code);
    }
    const dup = { conn_id: "dup", type: "generic", host: "127.0.0.1" };
    expect((await t.fetch("/connections", { method: "POST", json: dup })).status).toBe(201);
    const again = await t.fetch("/connections", { method: "POST", json: dup });
    expect(again.status).toBe(409);
    expect((await errorBody(again)).code).toBe("conflict");
  });

  it("exposes the code on the client's SluiceApiError", async () => {
    const error = await t.client.pipelines.get("00000000-0000-0000-0000-000000000000").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SluiceApiError);
    expect((error as SluiceApiError).status).toBe(404);
    expect((error as SluiceApiError).code).toBe("not_found");
  });
});
