import { describe, expect, it } from "vitest";
import { createTestDatabase } from "../../test-support/databases.js";
import { main } from "./index.mjs";

describe("example: embed-core", () => {
  it("creates, updates and lists versions in an embedded database", async () => {
    const db = await createTestDatabase("sqlite");
    try {
      expect(await main(db.url)).toEqual(["v2: updated enabled", "v1: created"]);
    } finally {
      await db.drop();
    }
  });
});
