import type { Knex } from "knex";
import type { SystemStore } from "../ports.js";
import type { Dialect } from "./dialects/index.js";
import { countOf } from "./rows.js";

export function createSystemStore(knex: Knex, dialect: Dialect): SystemStore {
  return {
    sizeBytes: () => dialect.sizeBytes(knex),
    async activeRunCount() {
      return countOf((await knex("runs").where({ status: "running" }).count({ n: "*" }).first()) as Record<string, unknown>);
    },
  };
}
