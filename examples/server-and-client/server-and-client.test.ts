import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../test-support/http.js";
import { main } from "./index.mjs";

describe("example: server-and-client", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("creates, runs and previews a pipeline through the client", async () => {
    const result = await main(t.baseUrl);
    expect(result.status).toBe("success");
    expect(result.rows).toEqual([1, 3, 5, 7, 9].map((n) => ({ n, square: n * n })));
  });
});
