import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "../../src/store/database-url.js";

describe("database URL parsing", () => {
  it("reads file paths and sqlite: URLs as SQLite files relative to the working directory", () => {
    expect(parseDatabaseUrl("./sluice.db", "/srv")).toEqual({
      dialect: "sqlite",
      filePath: "/srv/sluice.db",
      url: null,
    });
    expect(parseDatabaseUrl("sqlite:data/x.db", "/srv")).toEqual({
      dialect: "sqlite",
      filePath: path.resolve("/srv", "data/x.db"),
      url: null,
    });
    expect(parseDatabaseUrl("sqlite:/abs/x.db", "/srv").filePath).toBe("/abs/x.db");
    expect(parseDatabaseUrl("sqlite::memory:").filePath).toBe(":memory:");
  });

  it("reads postgres and mysql URLs", () => {
    expect(parseDatabaseUrl("postgres://u:p@h:5432/db").dialect).toBe("postgres");
    expect(parseDatabaseUrl("postgresql://u@h/db").dialect).toBe("postgres");
    expect(parseDatabaseUrl("mysql://root@127.0.0.1:3306/db").dialect).toBe("mysql");
    expect(parseDatabaseUrl("mariadb://root@127.0.0.1/db")).toMatchObject({
      dialect: "mysql",
      url: "mysql://root@127.0.0.1/db",
    });
  });

  it("refuses unknown schemes and empty values with a clear message", () => {
    expect(() => parseDatabaseUrl("mongodb://x")).toThrow(/unsupported database 'mongodb:'/);
    expect(() => parseDatabaseUrl("  ")).toThrow(/must not be empty/);
    expect(() => parseDatabaseUrl("sqlite:")).toThrow(/no file path/);
  });
});
