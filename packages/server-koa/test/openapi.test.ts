import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredRoutes } from "../src/app.js";
import { routeDoc } from "../src/openapi/build-openapi.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer("sqlite");
});
afterAll(async () => t?.close());

describe("GET /api/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const res = await t.fetch("/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("lists exactly the routes the server registers, each documented", async () => {
    const doc = (await (await t.fetch("/openapi.json")).json()) as { paths: Record<string, Record<string, { summary: string }>> };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const routes = registeredRoutes(t.server.app)
      .filter((r) => r.method !== "HEAD")
      .map((r) => `${r.method} ${(r.prefix + r.path).replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
    expect(documented).toEqual([...new Set(routes)].sort());
    const undocumented = registeredRoutes(t.server.app).filter((r) => r.method !== "HEAD" && !routeDoc(r.method, r.path));
    expect(undocumented).toEqual([]);
  });

  it("carries request body schemas from the zod models", async () => {
    const doc = await (await t.fetch("/openapi.json")).json();
    const create = doc.paths["/api/pipelines"].post.requestBody.content["application/json"].schema;
    expect(create.properties.name).toBeDefined();
    expect(create.properties.nodes.type).toBe("array");
  });
});
