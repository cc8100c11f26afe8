/** A connection body (POST /connections) pointing at a throw-away test database. */
import type { TestDatabase } from "./databases.js";

export function connectionFor(connId: string, db: TestDatabase): Record<string, unknown> {
  if (db.dialect === "sqlite") return { conn_id: connId, type: "sqlite", host: db.url.replace(/^sqlite:/, "") };
  const u = new URL(db.url);
  return {
    conn_id: connId,
    type: db.dialect,
    host: u.hostname,
    port: Number(u.port || (db.dialect === "postgres" ? 5432 : 3306)),
    schema: u.pathname.slice(1),
    login: decodeURIComponent(u.username) || (db.dialect === "postgres" ? "postgres" : "root"),
    password: decodeURIComponent(u.password),
  };
}
