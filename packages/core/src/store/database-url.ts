import path from "node:path";
import { SluiceError } from "../errors.js";
import type { DialectName } from "./ports.js";

export interface ParsedDatabaseUrl {
  dialect: DialectName;
  /** Absolute file path for SQLite (":memory:" for an in-memory database). */
  filePath: string | null;
  /** Connection string for server databases. */
  url: string | null;
}

/**
 * Accepts a file path or `sqlite:PATH` (SQLite), `postgres://…`/`postgresql://…`, or `mysql://…`/`mariadb://…`.
 */
export function parseDatabaseUrl(input: string, cwd: string = process.cwd()): ParsedDatabaseUrl {
  const value = input.trim();
  if (value === "") throw new SluiceError("bad_request", "database must not be empty");
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") {
    assertUrl(value);
    return { dialect: "postgres", filePath: null, url: value };
  }
  if (scheme === "mysql" || scheme === "mariadb") {
    assertUrl(value);
    return { dialect: "mysql", filePath: null, url: value.replace(/^mariadb:/i, "mysql:") };
  }
  if (scheme === "sqlite" || scheme === "file") {
    let rest = value.slice(scheme.length + 1);
    if (rest.startsWith("//")) rest = rest.slice(2);
    if (rest === "") throw new SluiceError("bad_request", `database '${input}' has no file path`);
    return { dialect: "sqlite", filePath: rest === ":memory:" ? ":memory:" : path.resolve(cwd, rest), url: null };
  }
  if (scheme && scheme.length > 1) {
    throw new SluiceError(
      "bad_request",
      `unsupported database '${scheme}:' (use a file path, sqlite:, postgres:// or mysql://)`,
    );
  }
  return { dialect: "sqlite", filePath: value === ":memory:" ? ":memory:" : path.resolve(cwd, value), url: null };
}

function assertUrl(value: string): void {
  try {
    new URL(value);
  } catch {
    throw new SluiceError("bad_request", "database URL is not a valid URL");
  }
}
