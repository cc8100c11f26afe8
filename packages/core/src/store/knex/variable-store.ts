import type { Knex } from "knex";
import type { VariableRecord, VariableStore } from "../ports.js";
import { countOf, toStr } from "./rows.js";
import { isUniqueViolation } from "./unique-violation.js";

type Row = Record<string, unknown>;

const fromRow = (r: Row): VariableRecord => ({
  key: toStr(r.key),
  type: toStr(r.type) === "secret" ? "secret" : "string",
  value: toStr(r.value),
  created_at: toStr(r.created_at),
  updated_at: toStr(r.updated_at),
});

export function createVariableStore(knex: Knex): VariableStore {
  return {
    async upsert(record) {
      return knex.transaction(async (trx) => {
        const updated = await trx("variables")
          .where({ key: record.key })
          .update({ type: record.type, value: record.value, updated_at: record.updated_at });
        if (updated > 0) return false;
        try {
          await trx("variables").insert({ ...record });
          return true;
        } catch (e) {
          if (!isUniqueViolation(e)) throw e;
          await trx("variables")
            .where({ key: record.key })
            .update({ type: record.type, value: record.value, updated_at: record.updated_at });
          return false;
        }
      });
    },
    async get(key) {
      const row = (await knex("variables").where({ key }).first()) as Row | undefined;
      return row ? fromRow(row) : null;
    },
    async list(page) {
      const total = countOf((await knex("variables").count({ n: "*" }).first()) as Row | undefined);
      let q = knex("variables").select("*").orderBy("key");
      if (page) q = q.limit(page.per_page).offset((page.page - 1) * page.per_page);
      return { items: ((await q) as Row[]).map(fromRow), total };
    },
    async delete(key) {
      return (await knex("variables").where({ key }).delete()) > 0;
    },
    async anySecret() {
      const row = (await knex("variables").where({ type: "secret" }).select("value").first()) as Row | undefined;
      return row ? toStr(row.value) : null;
    },
  };
}
