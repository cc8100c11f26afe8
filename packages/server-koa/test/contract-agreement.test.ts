import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey, OPERATIONS, type OperationId } from "../../core/src/index.js";
import { SluiceApiError, SluiceClient } from "../../client/src/index.js";
import { registeredRoutes } from "../src/index.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

/*
 * One contract: the operation table, the routes the server registers, the OpenAPI document and the client's calls
 * agree — checked for every entry of the table, so a new operation is covered without editing this test.
 */
const API_KEY = generateApiKey();
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite", { apiKeys: [API_KEY] });
});
afterAll(async () => t?.close());

const ids = Object.keys(OPERATIONS) as OperationId[];
const routed = ids.filter((id) => !("websocket" in OPERATIONS[id]));
const fullPath = (id: OperationId) => {
  const spec = OPERATIONS[id];
  return "root" in spec ? spec.path : `/api${spec.path}`;
};

describe("the operation table, the router, OpenAPI and the client agree", () => {
  it("the server registers exactly one route per routed operation, at the table's method and path", () => {
    const routes = registeredRoutes(t.server.app).map(
      (r) => `${r.operation} ${r.method} ${(r.prefix + r.path).replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`,
    );
    expect(routes.sort()).toEqual(routed.map((id) => `${id} ${OPERATIONS[id].method} ${fullPath(id)}`).sort());
  });

  it("OpenAPI lists every operation under its id, method and path, with its permission", async () => {
    const doc = (await (await t.fetch("/openapi.json", { headers: { "x-api-key": API_KEY } })).json()) as {
      paths: Record<string, Record<string, { operationId: string; "x-sluice-access": string }>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(
        ([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path} ${op["x-sluice-access"]}`,
      ),
    );
    expect(documented.sort()).toEqual(
      ids.map((id) => `${id} ${OPERATIONS[id].method} ${fullPath(id)} ${OPERATIONS[id].access}`).sort(),
    );
  });

  it("the client's call reaches the route of every operation (never a 404 'route not found' or a 405)", async () => {
    const client = new SluiceClient({ baseUrl: t.baseUrl, apiKey: API_KEY });
    const missed: string[] = [];
    for (const id of routed) {
      const params = Object.fromEntries(
        [...OPERATIONS[id].path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => [
          m[1],
          "00000000-0000-7000-8000-000000000000",
        ]),
      );
      // logout would end nothing here (an API key); every other call is answered by its route, successfully or not
      const error = await (client.call as (id: OperationId, input: unknown) => Promise<unknown>)(id, {
        params,
        ...(OPERATIONS[id].method === "GET" ? {} : { body: {} }),
      }).then(
        () => null,
        (e: unknown) => e,
      );
      if (error instanceof SluiceApiError && (error.status === 405 || /route not found/.test(error.message)))
        missed.push(`${id}: ${error.status} ${error.message}`);
      else if (error !== null && !(error instanceof SluiceApiError)) missed.push(`${id}: ${String(error)}`);
    }
    expect(missed).toEqual([]);
  });
});
