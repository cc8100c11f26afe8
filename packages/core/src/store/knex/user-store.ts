import type { Knex } from "knex";
import { ROLES, type Role } from "../../model/user.js";
import type { UserRecord, UserStore } from "../ports.js";
import { countOf, toStr } from "./rows.js";
import { isUniqueViolation } from "./unique-violation.js";

type Row = Record<string, unknown>;

export function userFromRow(row: Row): UserRecord {
  const role = toStr(row.role);
  return {
    id: toStr(row.id),
    username: toStr(row.username),
    // an unknown role read from the database grants the least
    role: (ROLES as readonly string[]).includes(role) ? (role as Role) : "viewer",
    password_hash: toStr(row.password_hash),
    password_changed_at: toStr(row.password_changed_at),
    created_at: toStr(row.created_at),
    updated_at: toStr(row.updated_at),
  };
}

export function createUserStore(knex: Knex): UserStore {
  return {
    async insert(user) {
      try {
        await knex("users").insert({ ...user });
        return true;
      } catch (e) {
        if (isUniqueViolation(e)) return false;
        throw e;
      }
    },
    async getById(id) {
      const row = (await knex("users").where({ id }).first()) as Row | undefined;
      return row ? userFromRow(row) : null;
    },
    async getByUsername(username) {
      const row = (await knex("users").where({ username }).first()) as Row | undefined;
      return row ? userFromRow(row) : null;
    },
    async list() {
      const rows = (await knex("users").orderBy([
        { column: "created_at", order: "asc" },
        { column: "id", order: "asc" },
      ])) as Row[];
      return rows.map(userFromRow);
    },
    async count() {
      return countOf((await knex("users").count({ n: "*" }).first()) as Row | undefined);
    },
    async remove(id) {
      await knex("users").where({ id }).delete();
    },
    async updatePassword(id, passwordHash, changedAt) {
      const changed = await knex("users")
        .where({ id })
        .update({ password_hash: passwordHash, password_changed_at: changedAt, updated_at: changedAt });
      return changed > 0;
    },
  };
}
