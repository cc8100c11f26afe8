import { afterAll, beforeAll, describe, expect, it } from "vitest";
import knexFactory, { type Knex } from "knex";
import { BatchStatements } from "../../src/store/knex/batch-statements.js";
import { createTestDatabase, testDialects, type TestDatabase } from "../../../../test-support/databases.js";

/*
 * On PostgreSQL a run-state batch goes out as the parts of as few statements as possible. What must hold: the parts
 * run in the order added as far as anyone can tell — a part sees the rows earlier parts wrote when it writes them
 * too — and no statement grows past the limits the separate statements had (values, bytes).
 */
const postgres = (await testDialects()).includes("postgres");

describe.runIf(postgres)("a batch's statements combined on PostgreSQL", () => {
  let db: TestDatabase;
  let knex: Knex;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    knex = knexFactory({ client: "pg", connection: db.url });
    await knex.schema.createTable("t", (t) => {
      t.string("id").primary();
      t.text("v");
    });
  });
  afterAll(async () => {
    await knex?.destroy();
    await db?.drop();
  });

  it("parts writing different rows share one statement, and each gets its own returned rows", async () => {
    await knex.transaction(async (trx) => {
      const got: string[][] = [];
      const batch = new BatchStatements(true)
        .add(trx("t").insert({ id: "a1", v: "x" }), { rows: ["t:a1"] })
        .add(trx("t").insert({ id: "a2", v: "y" }).returning("id"), {
          onRows: (r) => got.push(r.map((x) => x.id as string)),
        })
        .add(trx("t").insert({ id: "a3", v: "z" }).returning("v"), {
          onRows: (r) => got.push(r.map((x) => x.v as string)),
        });
      expect(batch.statementCount()).toBe(1);
      await batch.run(trx);
      expect(got).toEqual([["a2"], ["z"]]);
    });
    expect((await knex("t").whereIn("id", ["a1", "a2", "a3"]).orderBy("id")).map((r) => r.v)).toEqual(["x", "y", "z"]);
  });

  it("a part writing a row an earlier part wrote runs after it, in a statement of its own", async () => {
    await knex.transaction(async (trx) => {
      const batch = new BatchStatements(true)
        .add(trx("t").insert({ id: "b1", v: "new" }), { rows: ["t:b1"] })
        .add(trx("t").where({ id: "b1" }).update({ v: "first" }), { rows: ["t:b1"] })
        .add(trx("t").where({ id: "b1", v: "first" }).update({ v: "second" }), { rows: ["t:b1"] });
      expect(batch.statementCount()).toBe(3);
      await batch.run(trx);
    });
    expect((await knex("t").where({ id: "b1" }).first())?.v).toBe("second");
  });

  it("no statement carries more than 4 MiB of text, unless one part alone does", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    await knex.transaction(async (trx) => {
      const batch = new BatchStatements(true);
      for (const id of ["c1", "c2", "c3"]) batch.add(trx("t").insert({ id, v: big }));
      batch.add(trx("t").insert({ id: "c4", v: "small" }));
      expect(batch.statementCount()).toBe(3); // c1 | c2 | c3 + c4
      await batch.run(trx);
    });
    expect(await knex("t").whereIn("id", ["c1", "c2", "c3", "c4"]).count({ n: "*" })).toEqual([{ n: "4" }]);
  });

  it("two parts whose returned order matters never share a statement", async () => {
    await knex.transaction(async (trx) => {
      const batch = new BatchStatements(true)
        .add(trx("t").insert({ id: "d1", v: "" }).returning("id"), { onRows: () => undefined, ordered: "t" })
        .add(trx("t").insert({ id: "d2", v: "" }), {})
        .add(trx("t").insert({ id: "d3", v: "" }).returning("id"), { onRows: () => undefined, ordered: "t" });
      expect(batch.statementCount()).toBe(2);
      await batch.run(trx);
    });
  });
});
