// Preload for a benchmarked `sluice serve` (node --import <this file> …): counts the SQL statements the process
// executes, by verb and table, without touching Sluice's source. It wraps better-sqlite3's Statement run/get/all/
// iterate and Database#exec, and pg's Client#query (the drivers knex uses). On SIGUSR2 the counts so far are written
// as JSON to $SLUICE_BENCH_SQL_COUNTS. With $SQL_TRACE set, every statement's first 160 characters are also appended
// to that file (to find where statements come from).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.cwd(), "noop.js"));
const requireFromRoot = createRequire(new URL("../../package.json", import.meta.url));
const counts = {};
const key = (sql) => {
  const s = String(sql).trim().replace(/\s+/g, " ");
  const verb = (/^(\w+)/.exec(s)?.[1] ?? "?").toLowerCase();
  const table =
    /\b(?:into|update|from|table)\s+[`"]?(\w+)/i.exec(s)?.[1] ??
    (verb === "select" ? (/^select (\w+)/i.exec(s)?.[1] ?? "") : "");
  return table ? `${verb} ${table}` : verb;
};
const count = (sql) => {
  if (process.env.SQL_TRACE)
    fs.appendFileSync(process.env.SQL_TRACE, String(sql).replace(/\s+/g, " ").slice(0, 160) + "\n");
  const k = key(sql);
  counts[k] = (counts[k] ?? 0) + 1;
};

function load(name) {
  try {
    return requireFromRoot(name);
  } catch {
    return require(name);
  }
}

try {
  const Database = load("better-sqlite3");
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("select 1"));
  probe.close();
  for (const m of ["run", "get", "all", "iterate"]) {
    const orig = proto[m];
    proto[m] = function (...args) {
      count(this.source);
      return orig.apply(this, args);
    };
  }
  const exec = Database.prototype.exec;
  Database.prototype.exec = function (sql) {
    count(sql);
    return exec.call(this, sql);
  };
} catch (e) {
  process.stderr.write(`count-sql: better-sqlite3 not wrapped (${e.message})\n`);
}

try {
  const pg = load("pg");
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    count(typeof config === "string" ? config : (config?.text ?? "?"));
    return query.call(this, config, ...rest);
  };
} catch (e) {
  process.stderr.write(`count-sql: pg not wrapped (${e.message})\n`);
}

process.on("SIGUSR2", () => {
  const file = process.env.SLUICE_BENCH_SQL_COUNTS;
  if (file) fs.writeFileSync(file, JSON.stringify(counts));
});
