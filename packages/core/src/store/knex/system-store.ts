import type { Knex } from "knex";
import type { SystemStore } from "../ports.js";
import type { Dialect } from "./dialects/index.js";
import { countOf } from "./rows.js";

export function createSystemStore(knex: Knex, dialect: Dialect): SystemStore {
  const countByStatus = async (status: string) =>
    countOf((await knex("runs").where({ status }).count({ n: "*" }).first()) as Record<string, unknown>);
  return {
    sizeBytes: () => dialect.sizeBytes(knex),
    activeRunCount: () => countByStatus("running"),
    pendingRunCount: () => countByStatus("pending"),
  };
}
