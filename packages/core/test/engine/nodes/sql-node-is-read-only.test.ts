import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqlNode } from "../../../src/engine/nodes/sql.js";
import { sqlConfig } from "../../../src/engine/nodes/sql.js";
import { dataSetFromRows } from "../../../src/engine/dataset.js";
import { nodeContext } from "../peer-server.js";

// Each test is the `sql` config an editor would send to reach past the node's in-memory database.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-sql-attack-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const orders = dataSetFromRows([
  { id: 1, amount: 10 },
  { id: 2, amount: 20 },
]);
const run = (sql: string, signal?: AbortSignal) => {
  const { ctx } = nodeContext("sql", { inputIds: ["orders"], ...(signal ? { signal } : {}) });
  return sqlNode.run(ctx, sqlConfig.parse({ sql }), [orders]);
};

describe("the sql node runs read-only queries only", () => {
  it("ATTACH of a file (to create it, or to read another database) is refused and creates nothing", async () => {
    const target = path.join(dir, "attached.db");
    await expect(run(`ATTACH DATABASE '${target}' AS stolen`)).rejects.toThrow(/ATTACH .*(not allowed|refused)/);
    await expect(run(`/* hidden */ attach '${target}' as stolen`)).rejects.toThrow(/ATTACH|attach/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("VACUUM INTO a file is refused and writes no file", async () => {
    const target = path.join(dir, "copy.db");
    await expect(run(`VACUUM INTO '${target}'`)).rejects.toThrow(/VACUUM .*(not allowed|refused)/);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("load_extension() cannot load a library: the SQL function is refused with a clear message", async () => {
    const library = path.join(dir, "evil.so");
    fs.writeFileSync(library, "not really a library");
    await expect(run(`SELECT load_extension('${library}')`)).rejects.toThrow(/load_extension is not available/);
    await expect(run(`SELECT load_extension('${library}', 'sqlite3_evil_init') AS x FROM orders`)).rejects.toThrow(
      /load_extension is not available/,
    );
  });

  it("writing PRAGMAs are refused, even those that report a row; pragma table functions still read", async () => {
    for (const pragma of [
      "PRAGMA writable_schema = ON",
      "PRAGMA query_only = OFF",
      "PRAGMA journal_mode = OFF",
      "PRAGMA user_version = 7",
      "-- x\nPRAGMA optimize",
    ]) {
      await expect(run(pragma), pragma).rejects.toThrow(/PRAGMA is refused/);
    }
    const { output } = await run("SELECT name FROM pragma_table_info('orders') ORDER BY cid");
    expect(output.rows).toEqual([{ name: "id" }, { name: "amount" }]);
  });

  it("statements that change data are refused, including … RETURNING, and leave the input as it was", async () => {
    await expect(run("DELETE FROM orders")).rejects.toThrow(/only read-only queries run here.*DELETE is refused/);
    await expect(run("INSERT INTO orders VALUES (3, 30) RETURNING *")).rejects.toThrow(/INSERT is refused/);
    await expect(run("CREATE TABLE x (a)")).rejects.toThrow(/CREATE is refused/);
    await expect(run("BEGIN")).rejects.toThrow(/BEGIN is refused/);
    expect((await run("WITH t AS (SELECT sum(amount) AS s FROM orders) SELECT s FROM t")).output.rows).toEqual([
      { s: 30 },
    ]);
  });

  it("a query that never ends stops at once when the run is cancelled", async () => {
    const controller = new AbortController();
    const endless = run(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
      controller.signal,
    );
    setTimeout(() => controller.abort(), 200);
    await expect(endless).rejects.toThrow(/cancelled/);
  });
});
