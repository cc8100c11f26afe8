import type { Knex } from "knex";
import type { LoginAttempt, LoginAttemptStore } from "../ports.js";
import { toInt, toNullableStr, toStr } from "./rows.js";
import { isUniqueViolation } from "./unique-violation.js";

/** Deadlocks and serialization failures are worth one more try; so is losing an insert race. */
function isRetryable(e: unknown): boolean {
  const err = e as { code?: unknown; errno?: unknown };
  return (
    isUniqueViolation(e) ||
    err.errno === 1213 ||
    err.code === "ER_LOCK_DEADLOCK" ||
    err.code === "40P01" ||
    err.code === "40001"
  );
}

type Row = Record<string, unknown>;

function fromRow(row: Row): LoginAttempt {
  return {
    username: toStr(row.username),
    failures: toInt(row.failures),
    first_failure_at: toStr(row.first_failure_at),
    locked_until: toNullableStr(row.locked_until),
  };
}

export function createLoginAttemptStore(knex: Knex): LoginAttemptStore {
  async function get(db: Knex | Knex.Transaction, username: string): Promise<LoginAttempt | null> {
    const row = (await db("login_attempts").where({ username }).first()) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  return {
    get: (username) => get(knex, username),
    async recordFailure(username, policy) {
      const { at, windowStart, threshold, lockUntil } = policy;
      for (let attempt = 0; ; attempt++) {
        try {
          // Two single statements, no explicit transaction: the row is made to exist, then counted in one UPDATE.
          // Holding a shared lock from the insert while updating deadlocks MySQL under concurrent failures.
          await knex("login_attempts")
            .insert({ username, failures: 0, first_failure_at: at, locked_until: null })
            .onConflict("username")
            .ignore();
          // MySQL evaluates SET left to right with already-updated values, PostgreSQL and SQLite with old ones:
          // each expression reads only columns assigned after it, so all three agree.
          await knex("login_attempts")
            .where({ username })
            .update({
              locked_until: knex.raw(
                `CASE WHEN first_failure_at >= ?
                   THEN (CASE WHEN failures + 1 >= ? AND (locked_until IS NULL OR locked_until <= ?) THEN ? ELSE locked_until END)
                   ELSE (CASE WHEN 1 >= ? THEN ? ELSE NULL END) END`,
                [windowStart, threshold, at, lockUntil, threshold, lockUntil],
              ),
              failures: knex.raw("CASE WHEN first_failure_at >= ? THEN failures + 1 ELSE 1 END", [windowStart]),
              first_failure_at: knex.raw("CASE WHEN first_failure_at >= ? THEN first_failure_at ELSE ? END", [
                windowStart,
                at,
              ]),
            });
          return (await get(knex, username)) as LoginAttempt;
        } catch (e) {
          if (attempt < 3 && isRetryable(e)) continue;
          throw e;
        }
      }
    },
    async clear(username) {
      await knex("login_attempts").where({ username }).delete();
    },
    async prune(windowStart, at) {
      return knex("login_attempts")
        .where("first_failure_at", "<", windowStart)
        .andWhere((q) => q.whereNull("locked_until").orWhere("locked_until", "<=", at))
        .delete();
    },
  };
}
