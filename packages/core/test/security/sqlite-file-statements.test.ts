import { describe, expect, it } from "vitest";
import { refuseSqliteFileStatements } from "../../src/connectors/types/sqlite.js";

describe("SQL that would make SQLite open another file", () => {
  it.each([
    "ATTACH DATABASE '/data/sluice.db' AS s; SELECT * FROM s.users",
    "select 1; attach '/data/sluice.db' as y",
    "select 1 /* x */; AtTaCh 'f' || 'g' as g",
    "select 'it''s'; attach 'x' as y",
    "VACUUM INTO '/tmp/copy.db'",
    "vacuum main into '/etc/x'",
  ])("refuses %s", (sql) => {
    expect(() => refuseSqliteFileStatements(sql)).toThrow(/not allowed/);
  });

  it.each([
    "SELECT 'attach' AS a",
    'SELECT "attach" FROM t',
    "SELECT [attach] FROM t",
    "-- attach\nSELECT 1",
    "/* attach */ select 1",
    "vacuum; insert into t values (1)",
    "INSERT INTO t SELECT * FROM u",
  ])("allows %s", (sql) => {
    expect(() => refuseSqliteFileStatements(sql)).not.toThrow();
  });
});
