import { describe, expect, it } from "vitest";
import { createTestDatabase } from "../../test-support/databases.js";
import { main } from "./index.mjs";

describe("example: custom-node-type", () => {
  it("registers a node type, creates a pipeline using it over the API and runs it to success", async () => {
    const db = await createTestDatabase("sqlite");
    try {
      expect(await main(db.url)).toEqual({
        status: "success",
        rows: ["2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06"].map((day, i) => ({
          day,
          weekday: i + 1,
        })),
      });
    } finally {
      await db.drop();
    }
  });
});
