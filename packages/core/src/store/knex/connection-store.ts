import type { Knex } from "knex";
import type { ConnectionRecord, ConnectionStore } from "../ports.js";
import { countOf, toNullableStr, toStr } from "./rows.js";
import { isUniqueViolation } from "./unique-violation.js";

type Row = Record<string, unknown>;

const fromRow = (r: Row): ConnectionRecord => ({
  id: toStr(r.id),
  conn_id: toStr(r.conn_id),
  type: toStr(r.type),
  host: toStr(r.host),
  port: r.port == null ? null : Number(r.port),
  schema: toStr(r.schema),
  login: toStr(r.login),
  password_enc: toNullableStr(r.password_enc),
  extra_enc: toNullableStr(r.extra_enc),
  created_at: toStr(r.created_at),
  updated_at: toStr(r.updated_at),
});

export function createConnectionStore(knex: Knex): ConnectionStore {
  return {
    async insert(record) {
      try {
        await knex("connections").insert({ ...record });
        return true;
      } catch (e) {
        if (isUniqueViolation(e)) return false;
        throw e;
      }
    },
    async update(record) {
      const { id: _id, conn_id, created_at: _c, ...fields } = record;
      return (await knex("connections").where({ conn_id }).update(fields)) > 0;
    },
    async get(connId) {
      const row = (await knex("connections").where({ conn_id: connId }).first()) as Row | undefined;
      return row ? fromRow(row) : null;
    },
    async list(page) {
      const total = countOf((await knex("connections").count({ n: "*" }).first()) as Row | undefined);
      let q = knex("connections").select("*").orderBy("conn_id");
      if (page) q = q.limit(page.per_page).offset((page.page - 1) * page.per_page);
      return { items: ((await q) as Row[]).map(fromRow), total };
    },
    async delete(connId) {
      return (await knex("connections").where({ conn_id: connId }).delete()) > 0;
    },
    async anyEncrypted() {
      const row = (await knex("connections").whereNotNull("password_enc").select("password_enc").first()) as
        Row | undefined;
      return row ? toStr(row.password_enc) : null;
    },
  };
}
