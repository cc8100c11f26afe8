import type { PipelineNode } from "../model/node.js";

/** What one node touches outside its pipeline, derived from its config (lineage, impact, used-by). */
export interface NodeReferences {
  connections: string[];
  tablesRead: TableRef[];
  tablesWritten: TableRef[];
  filesRead: string[];
  filesWritten: string[];
  apisRead: string[];
  apisWritten: string[];
  variables: string[];
}

export interface TableRef {
  /** Connection id, or "" when the node names none. */
  conn_id: string;
  table: string;
}

const VAR_REF = /\$\{var\.([A-Za-z_][A-Za-z0-9_.-]*)\}/g;
/** Tables after FROM/JOIN (and INTO/UPDATE for writes) — a heuristic over SQL text, good for lineage. */
const SQL_READ = /\b(?:from|join)\s+((?:"[^"]+"|`[^`]+`|[A-Za-z_][\w$]*)(?:\.(?:"[^"]+"|`[^`]+`|[A-Za-z_][\w$]*))?)/gi;
const SQL_WRITE = /\b(?:insert\s+into|update|create\s+table(?:\s+if\s+not\s+exists)?|alter\s+table|truncate(?:\s+table)?|delete\s+from)\s+((?:"[^"]+"|`[^`]+`|[A-Za-z_][\w$]*)(?:\.(?:"[^"]+"|`[^`]+`|[A-Za-z_][\w$]*))?)/gi;

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
const unquote = (name: string) => name.replace(/["`]/g, "").toLowerCase();
const SQL_KEYWORDS = new Set(["select", "lateral", "unnest", "values", "dual"]);

function tablesIn(sql: string, pattern: RegExp): string[] {
  const out = new Set<string>();
  for (const m of sql.matchAll(pattern)) {
    const name = unquote(m[1] ?? "");
    if (name && !SQL_KEYWORDS.has(name)) out.add(name);
  }
  return [...out];
}

function apiTarget(config: Record<string, unknown>): string | null {
  const url = str(config.url);
  if (url) {
    try {
      const u = new URL(url);
      return `${u.origin}${u.pathname}`;
    } catch {
      return url;
    }
  }
  const conn = str(config.conn_id);
  return conn ? `${conn}:${str(config.path) ?? "/"}` : null;
}

export function nodeReferences(node: Pick<PipelineNode, "type" | "config">): NodeReferences {
  const c = node.config ?? {};
  const conn = str(c.conn_id) ?? "";
  const refs: NodeReferences = {
    connections: conn ? [conn] : [],
    tablesRead: [],
    tablesWritten: [],
    filesRead: [],
    filesWritten: [],
    apisRead: [],
    apisWritten: [],
    variables: [...new Set([...JSON.stringify(c).matchAll(VAR_REF)].map((m) => m[1] as string))],
  };
  const table = (t: string): TableRef => ({ conn_id: conn, table: t });
  switch (node.type) {
    case "source_db": {
      const query = str(c.query) ?? "";
      refs.tablesRead = tablesIn(query, SQL_READ).map(table);
      const named = str(c.table);
      if (named) refs.tablesRead.push(table(named.toLowerCase()));
      break;
    }
    case "sink_db": {
      const named = str(c.table);
      if (named) refs.tablesWritten = [table(named.toLowerCase())];
      break;
    }
    case "migrate": {
      const sql = str(c.sql) ?? "";
      refs.tablesWritten = tablesIn(sql, SQL_WRITE).map(table);
      break;
    }
    case "source_file":
      if (str(c.path)) refs.filesRead = [str(c.path) as string];
      break;
    case "sink_file":
      if (str(c.path)) refs.filesWritten = [str(c.path) as string];
      break;
    case "source_api": {
      const target = apiTarget(c);
      if (target) refs.apisRead = [target];
      break;
    }
    case "sink_api":
    case "notify": {
      const target = apiTarget(c);
      if (target) refs.apisWritten = [target];
      break;
    }
    default:
      break;
  }
  return refs;
}
