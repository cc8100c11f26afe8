import { SluiceError } from "../errors.js";
import type { BoundSql } from "./node-type.js";

/** `${param.KEY}`, `${var.KEY}`, `${run.id|date|started_at}` — the placeholders node configs may hold. */
const PLACEHOLDER = /\$\{\s*(param|var|run)\.([A-Za-z_][A-Za-z0-9_.-]*)\s*\}/g;

export interface TemplateScope {
  params: Readonly<Record<string, string>>;
  run: { id: string; date: string; started_at: string };
  /** Looks up a stored variable (secrets decrypted). Rejects with not_found for an unknown key. */
  variable(key: string): Promise<string>;
}

async function lookup(scope: TemplateScope, kind: string, key: string): Promise<string> {
  if (kind === "param") {
    if (!Object.hasOwn(scope.params, key))
      throw new SluiceError("invalid", `missing run parameter '${key}' (\${param.${key}})`);
    return scope.params[key]!;
  }
  if (kind === "run") {
    if (key === "id" || key === "date" || key === "started_at") return scope.run[key];
    throw new SluiceError("invalid", `unknown run field '${key}' (\${run.${key}}); use id, date or started_at`);
  }
  try {
    return await scope.variable(key);
  } catch (e) {
    if (e instanceof SluiceError && e.code === "not_found") {
      throw new SluiceError("invalid", `missing variable '${key}' (\${var.${key}})`);
    }
    throw e;
  }
}

/** Replaces every placeholder in `text` with its value. */
export async function renderTemplate(text: string, scope: TemplateScope): Promise<string> {
  if (!text.includes("${")) return text;
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, m.index), await lookup(scope, m[1]!, m[2]!));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts.join("");
}

/**
 * Renders SQL so that substituted values can never change the statement: each placeholder becomes a `?` bound
 * parameter (knex `raw` convention; a literal `?` in the SQL is escaped as `\\?`). A placeholder that is the whole
 * content of a quoted literal (`'${param.date}'`) is bound as that value, quotes dropped, so both
 * `d = ${param.date}` and `d = '${param.date}'` work. A placeholder inside a longer literal (`'%${param.q}%'`) is
 * refused — write `'%' || ${param.q} || '%'` instead — because it could not be bound.
 */
export async function renderSqlTemplate(sql: string, scope: TemplateScope): Promise<BoundSql> {
  const bindings: unknown[] = [];
  let out = "";
  let inString = false;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'") {
      if (inString && sql[i + 1] === "'") {
        out += "''";
        i += 2;
        continue;
      }
      // a literal that is exactly one placeholder: '${...}'
      if (!inString) {
        PLACEHOLDER.lastIndex = 0;
        const m = new RegExp(`^'${PLACEHOLDER.source}'`).exec(sql.slice(i));
        if (m) {
          out += "?";
          bindings.push(await lookup(scope, m[1]!, m[2]!));
          i += m[0].length;
          continue;
        }
      }
      inString = !inString;
      out += ch;
      i += 1;
      continue;
    }
    if (ch === "$" && sql[i + 1] === "{") {
      const m = new RegExp(`^${PLACEHOLDER.source}`).exec(sql.slice(i));
      if (m) {
        if (inString) {
          throw new SluiceError(
            "invalid",
            `\${${m[1]}.${m[2]}} sits inside a longer SQL string literal and cannot be bound safely; ` +
              `use it as a whole value, e.g. '%' || \${${m[1]}.${m[2]}} || '%'`,
          );
        }
        out += "?";
        bindings.push(await lookup(scope, m[1]!, m[2]!));
        i += m[0].length;
        continue;
      }
    }
    out += ch === "?" ? "\\?" : ch;
    i += 1;
  }
  return { sql: out, bindings };
}
