import pg from "pg";
import { describe, expect, it } from "vitest";
import { createTestDatabase, testDialects } from "../../test-support/databases.js";
import { main } from "./index.mjs";

const pgAvailable = (await testDialects()).includes("postgres");

describe("example: sqlite-to-postgres", () => {
  it.runIf(pgAvailable)(
    "upserts the SQLite rows into PostgreSQL; a second run updates without duplicating",
    async () => {
      const db = await createTestDatabase("postgres");
      try {
        const first = await main(db.url);
        expect(first).toMatchObject({ status: "success", written: 2 });
        const second = await main(db.url, first.workDir);
        expect(second.status).toBe("success");
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        const { rows } = await client.query("select id, email, visits from customers_sync order by id");
        await client.end();
        expect(rows.map((r) => [Number(r.id), r.email, Number(r.visits)])).toEqual([
          [1, "ada@example.com", 5],
          [2, "bob@example.com", 1],
        ]);
      } finally {
        await db.drop();
      }
    },
  );
});
