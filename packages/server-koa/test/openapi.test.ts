import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

  it("carries request body schemas from the zod models", async () => {
    const doc = await (await t.fetch("/openapi.json")).json();
    const create = doc.paths["/api/pipelines"].post.requestBody.content["application/json"].schema;
    expect(create.properties.name).toBeDefined();
    expect(create.properties.nodes.type).toBe("array");
  });
});
