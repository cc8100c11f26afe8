import type { Knex } from "knex";

/**
 * MySQL/MariaDB compare strings case- and accent-insensitively by default, so `Alice` and `alice` (or `jose` and
 * `josé`) would be one user there and two on SQLite and PostgreSQL. A binary collation makes usernames match
 * exactly on every dialect. The other dialects already compare bytes.
 */
export async function up(knex: Knex): Promise<void> {
  const client = String((knex.client as { config: { client?: unknown } }).config.client ?? "");
  if (!client.startsWith("mysql")) return;
  await knex.raw("ALTER TABLE users MODIFY username VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL");
  await knex.raw(
    "ALTER TABLE login_attempts MODIFY username VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL",
  );
}

export async function down(): Promise<void> {
  throw new Error("migrations are append-only; restore a backup to go back");
}
