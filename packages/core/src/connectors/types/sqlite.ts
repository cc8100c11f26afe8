import Database from "better-sqlite3";
import type { Connector } from "../connector.js";
import { SluiceError } from "../../errors.js";
import { resolveConfinedPath } from "../../file-access.js";

export const sqliteConnector: Connector = {
  type: "sqlite",
  label: "SQLite",
  fields: ["host"],
  driver: "better-sqlite3",
  uri: (c) => c.host,
  // the database file obeys the file roots like file nodes, so no connection reaches the server's own database
  async confineFiles(c, access) {
    return c.host === ":memory:" ? c : { ...c, host: await resolveConfinedPath(c.host, access) };
  },
  async test(c) {
    // read-only and fileMustExist: a missing file is a failure, never a new empty database
    const db = new Database(c.host, { readonly: true, fileMustExist: true, timeout: 5000 });
    try {
      db.prepare("SELECT 1").get();
      return `opened SQLite database ${c.host}`;
    } finally {
      db.close();
    }
  },
};

/** Words of SQL text outside string literals, quoted identifiers and comments, split into statements at `;`. */
function sqlWordsPerStatement(sql: string): string[][] {
  const statements: string[][] = [[]];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const closer = ch === "'" ? "'" : ch === '"' ? '"' : ch === "`" ? "`" : ch === "[" ? "]" : null;
    if (closer) {
      const end = sql.indexOf(closer, i + 1);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith("/*", i)) {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (ch === ";") {
      statements.push([]);
      i++;
    } else {
      const word = /^[\p{L}_][\p{L}\p{N}_$]*/u.exec(sql.slice(i, i + 256))?.[0];
      if (word) statements.at(-1)!.push(word.toUpperCase());
      i += word ? word.length : 1;
    }
  }
  return statements;
}

/**
 * Refuses SQL that makes SQLite open or create a file by name: `ATTACH` (which would reach any database on the
 * machine, the server's own included, past the file roots) and `VACUUM … INTO`. Call it on user SQL before it runs
 * on any SQLite database (source_db, sink_db, migrate, sql). A quoted `"attach"` identifier stays allowed.
 */
export function refuseSqliteFileStatements(sql: string): void {
  for (const words of sqlWordsPerStatement(sql)) {
    if (words.includes("ATTACH")) {
      throw new SluiceError("forbidden", "ATTACH is not allowed: a node works on its connection's database only");
    }
    if (words[0] === "VACUUM" && words.includes("INTO")) {
      throw new SluiceError(
        "forbidden",
        "VACUUM INTO is not allowed: it writes a file outside the connection's database",
      );
    }
  }
}
