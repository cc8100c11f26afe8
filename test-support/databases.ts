/**
 * Throw-away databases for tests: a temp SQLite file, or a fresh PostgreSQL / MariaDB database on the local
 * servers (SLUICE_TEST_PG_URL, SLUICE_TEST_MYSQL_URL). An unreachable server skips its tests with a loud message,
 * unless SLUICE_REQUIRE_SERVICES=1, where it fails them.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import mysql from "mysql2/promise";
import pg from "pg";
import type { DialectName } from "../packages/core/src/store/ports.js";

export const PG_ADMIN_URL = process.env.SLUICE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const MYSQL_ADMIN_URL = process.env.SLUICE_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/";
const REQUIRE = process.env.SLUICE_REQUIRE_SERVICES === "1";

export interface TestDatabase {
  dialect: DialectName;
  /** What `createSluice({ database })` / `--db` takes. */
  url: string;
  drop(): Promise<void>;
}

const uniqueName = () => `sluice_t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;

async function pgReachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function mysqlReachable(): Promise<string | null> {
  try {
    const conn = await mysql.createConnection({ uri: MYSQL_ADMIN_URL, connectTimeout: 3000 });
    await conn.query("select 1");
    await conn.end();
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

let cached: Promise<DialectName[]> | null = null;

/** Dialects to test: SLUICE_TEST_DIALECTS (comma list) or all; unreachable servers skipped loudly or fail. */
export function testDialects(): Promise<DialectName[]> {
  cached ??= (async () => {
    const wanted = (process.env.SLUICE_TEST_DIALECTS ?? "sqlite,postgres,mysql")
      .split(",")
      .map((d) => d.trim())
      .filter(Boolean) as DialectName[];
    const out: DialectName[] = [];
    for (const dialect of wanted) {
      if (dialect === "sqlite") {
        out.push(dialect);
        continue;
      }
      const problem = dialect === "postgres" ? await pgReachable() : await mysqlReachable();
      if (problem === null) {
        out.push(dialect);
        continue;
      }
      const message = `${dialect} is not reachable (${problem})`;
      if (REQUIRE) throw new Error(`${message} and SLUICE_REQUIRE_SERVICES=1`);
      console.warn(`\n!!!!!!!!!!\n!!! SKIPPING ${dialect.toUpperCase()} TESTS: ${message}\n!!!!!!!!!!\n`);
    }
    return out;
  })();
  return cached;
}

export function tempDir(prefix = "sluice-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const name = uniqueName();
  switch (dialect) {
    case "sqlite": {
      const dir = tempDir();
      return {
        dialect,
        url: `sqlite:${path.join(dir, "test.db")}`,
        drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    }
    case "postgres": {
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`create database "${name}"`);
      await admin.end();
      const url = new URL(PG_ADMIN_URL);
      url.pathname = `/${name}`;
      return {
        dialect,
        url: url.toString(),
        drop: async () => {
          const c = new pg.Client({ connectionString: PG_ADMIN_URL });
          await c.connect();
          await c.query(`drop database if exists "${name}" with (force)`);
          await c.end();
        },
      };
    }
    case "mysql": {
      const admin = await mysql.createConnection({ uri: MYSQL_ADMIN_URL });
      await admin.query(`create database \`${name}\` character set utf8mb4 collate utf8mb4_unicode_ci`);
      await admin.end();
      const url = new URL(MYSQL_ADMIN_URL);
      url.pathname = `/${name}`;
      return {
        dialect,
        url: url.toString(),
        drop: async () => {
          const c = await mysql.createConnection({ uri: MYSQL_ADMIN_URL });
          await c.query(`drop database if exists \`${name}\``);
          await c.end();
        },
      };
    }
  }
}

/** The row of run `runId` in the PostgreSQL database at `url`, read directly (what the servers wrote). */
export async function pgRunRow(url: string, runId: string): Promise<Record<string, unknown> | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, unknown>>("select * from runs where id = $1", [runId]);
    return rows[0];
  } finally {
    await client.end();
  }
}

/** The owner id (`{instance id}:{pid}:{random}`) of a run in a PostgreSQL database: which instance executes it. */
export async function pgRunOwner(url: string, runId: string): Promise<string> {
  return ((await pgRunRow(url, runId))?.owner as string | null | undefined) ?? "";
}
