import Database from "better-sqlite3";
import type { Connector } from "../connector.js";

export const sqliteConnector: Connector = {
  type: "sqlite",
  label: "SQLite",
  fields: ["host"],
  driver: "better-sqlite3",
  uri: (c) => c.host,
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
