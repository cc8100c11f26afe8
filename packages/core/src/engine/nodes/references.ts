import type { TableRef } from "../node-type.js";

/**
 * Helpers for the `references` of node types: read a stored config defensively (it may be incomplete) and find the
 * tables in SQL text — a heuristic, good enough for lineage and impact.
 */

/** A trimmed non-empty string, else null. */
export const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

/** The values that are non-empty strings, trimmed. */
export const texts = (...values: unknown[]): string[] => values.map(text).filter((v): v is string => v !== null);

/**
 * The tables `sql` reads (after FROM/JOIN) or writes (INSERT INTO, UPDATE, CREATE/ALTER/TRUNCATE TABLE, DELETE FROM).
 */
export function sqlTables(sql: string, kind: "read" | "written"): string[] {
  const out = new Set<string>();
  for (const m of sql.matchAll(kind === "read" ? SQL_READ : SQL_WRITE)) {
    const name = (m[1] ?? "").replace(/["`]/g, "").toLowerCase();
    if (name && !SQL_KEYWORDS.has(name)) out.add(name);
  }
  return [...out];
}

/** Table references (names lower-cased) on the node's connection (`conn_id`, "" when it names none). */
export function tablesOf(config: Readonly<Record<string, unknown>>, names: readonly string[]): TableRef[] {
  const conn = text(config.conn_id) ?? "";
  return names.map((table) => ({ conn_id: conn, table: table.toLowerCase() }));
}

/** Where an HTTP node points: origin + path of `url`, or `conn_id:path`. */
export function apiTarget(config: Readonly<Record<string, unknown>>): string[] {
  const url = text(config.url);
  if (url) {
    try {
      const u = new URL(url);
      return [`${u.origin}${u.pathname}`];
    } catch {
      return [url];
    }
  }
  const conn = text(config.conn_id);
  return conn ? [`${conn}:${text(config.path) ?? "/"}`] : [];
}

const NAME = '(?:"[^"]+"|`[^`]+`|[A-Za-z_][\\w$]*)';
const QUALIFIED = `(${NAME}(?:\\.${NAME})?)`;
const SQL_READ = new RegExp(`\\b(?:from|join)\\s+${QUALIFIED}`, "gi");
const SQL_WRITE = new RegExp(
  `\\b(?:insert\\s+into|update|create\\s+table(?:\\s+if\\s+not\\s+exists)?|alter\\s+table|truncate(?:\\s+table)?|delete\\s+from)\\s+${QUALIFIED}`,
  "gi",
);
const SQL_KEYWORDS = new Set(["select", "lateral", "unnest", "values", "dual"]);
