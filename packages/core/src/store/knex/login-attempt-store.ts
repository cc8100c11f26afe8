import type { Knex } from "knex";
import type { LoginAttempt, LoginAttemptStore } from "../ports.js";
import { toInt, toNullableStr, toStr } from "./rows.js";
import { isUniqueViolation } from "./unique-violation.js";

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
      for (let attempt = 0; ; attempt++) {
        try {
          return await knex.transaction(async (trx) => {
            // Counting in SQL (failures + 1) keeps concurrent failures from different instances from being lost.
            const bumped = await trx("login_attempts")
              .where({ username })
              .andWhere("first_failure_at", ">=", policy.windowStart)
              .update({ failures: trx.raw("failures + 1") });
            if (bumped === 0) {
              const reset = await trx("login_attempts")
                .where({ username })
                .update({ failures: 1, first_failure_at: policy.at, locked_until: null });
              if (reset === 0) await trx("login_attempts").insert({ username, failures: 1, first_failure_at: policy.at, locked_until: null });
            }
            const current = (await get(trx, username)) as LoginAttempt;
            const alreadyLocked = current.locked_until !== null && current.locked_until > policy.at;
            if (current.failures >= policy.threshold && !alreadyLocked) {
              await trx("login_attempts").where({ username }).update({ locked_until: policy.lockUntil });
              return { ...current, locked_until: policy.lockUntil };
            }
            return current;
          });
        } catch (e) {
          // two instances inserting the first failure at once: the loser retries as an update
          if (attempt < 2 && isUniqueViolation(e)) continue;
          throw e;
        }
      }
    },
    async clear(username) {
      await knex("login_attempts").where({ username }).delete();
    },
  };
}
