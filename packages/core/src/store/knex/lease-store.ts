import type { Knex } from "knex";
import type { LeaseStore } from "../ports.js";

/**
 * Named leases: a holder keeps a lease by renewing it before `expires_at`; anyone may take an expired one. The same
 * three statements work on every dialect: insert-if-absent, conditional update, read back.
 */
export function createLeaseStore(knex: Knex): LeaseStore {
  return {
    async acquire(name, owner, ttlMs, now) {
      const expires = new Date(now.getTime() + ttlMs).toISOString();
      await knex("leases").insert({ name, owner, expires_at: expires }).onConflict("name").ignore();
      await knex("leases")
        .where({ name })
        .andWhere((q) => q.where({ owner }).orWhere("expires_at", "<", now.toISOString()))
        .update({ owner, expires_at: expires });
      const row = (await knex("leases").where({ name }).first()) as { owner: string } | undefined;
      return row?.owner === owner;
    },
    async release(name, owner) {
      await knex("leases").where({ name, owner }).delete();
    },
    async holder(name, now) {
      const row = (await knex("leases").where({ name }).first()) as { owner: string; expires_at: string } | undefined;
      return row && row.expires_at >= now.toISOString() ? row.owner : null;
    },
  };
}
