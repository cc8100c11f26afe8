import { setImmediate as nextTurn } from "node:timers/promises";
import type { Knex } from "knex";
import { TERMINAL_RUN_STATUSES } from "../../model/event-types.js";
import type { SystemStore } from "../ports.js";
import type { Dialect } from "./dialects/index.js";
import { countOf } from "./rows.js";

/** How long one purge batch should take at most, on the server's thread with SQLite; a longer one halves the next. */
const PURGE_BATCH_MS = 50;

export function createSystemStore(knex: Knex, dialect: Dialect): SystemStore {
  const countByStatus = async (status: string) =>
    countOf((await knex("runs").where({ status }).count({ n: "*" }).first()) as Record<string, unknown>);
  return {
    sizeBytes: () => dialect.sizeBytes(knex),
    activeRunCount: () => countByStatus("running"),
    pendingRunCount: () => countByStatus("pending"),
    async purgeRunsBefore(cutoffIso, batchSize = 500) {
      let deleted = 0;
      let size = batchSize;
      for (;;) {
        const began = performance.now();
        const { selected, removed } = await knex.transaction(async (trx) => {
          const ids = (
            (await trx("runs")
              .select("id")
              .where("created_at", "<", cutoffIso)
              .whereIn("status", TERMINAL_RUN_STATUSES)
              .orderBy("created_at")
              .limit(size)) as { id: string }[]
          ).map((r) => r.id);
          if (ids.length === 0) return { selected: 0, removed: 0 };
          for (const table of ["node_runs", "run_logs", "node_outputs", "dlq_entries"])
            await trx(table).whereIn("run_id", ids).delete();
          return { selected: ids.length, removed: Number(await trx("runs").whereIn("id", ids).delete()) };
        });
        deleted += removed;
        // fewer found than asked for: no more (fewer deleted than found: another purge took some meanwhile)
        if (selected < size) return deleted;
        // a turn for the server's other work between batches (on SQLite a batch's statements resolve without one:
        // 100,000 runs held it for 1.5 s), and smaller batches where one took long (runs of many nodes or log lines)
        const took = performance.now() - began;
        if (took > PURGE_BATCH_MS) size = Math.max(1, Math.floor(size / 2));
        else if (took < PURGE_BATCH_MS / 2) size = Math.min(batchSize, size * 2);
        await nextTurn();
      }
    },
  };
}
