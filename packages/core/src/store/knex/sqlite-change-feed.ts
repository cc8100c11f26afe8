import type { PipelineChangeFeed } from "./cached-pipeline-store.js";
import type { SqliteStatements } from "./sqlite-statements.js";

/** How often the SQLite feed looks whether pipelines were written. */
export const PIPELINE_WRITES_POLL_MS = 1000;

const SELECT_PIPELINE_WRITES = "select count from pipeline_writes where id = 1";

/**
 * The pipeline change feed of a SQLite file. Triggers count every write to `pipelines` in `pipeline_writes`
 * (migration 010), whoever makes it: this process, through the store or any other path, another process on the same
 * file (one process per SQLite file is the design), an operator's `sqlite3` shell. The count is looked at every
 * second; when it moved, everything cached is dropped (`onChange(null)`). The store's own writes drop their entry
 * before they return, so they are seen at once. A failed look is a lost feed (nothing is served from memory) until
 * the next look succeeds.
 */
export function sqliteChangeFeed(sqlite: SqliteStatements, everyMs = PIPELINE_WRITES_POLL_MS): PipelineChangeFeed {
  const writes = () =>
    sqlite.use((prepare) => Number((prepare(SELECT_PIPELINE_WRITES).get() as { count: number }).count));
  return {
    async listen(onChange, onLost) {
      let known = await writes();
      let lost = false;
      let looking: Promise<void> = Promise.resolve();
      const timer = setInterval(() => {
        looking = writes().then(
          (count) => {
            if (count === known && !lost) return;
            known = count;
            lost = false;
            onChange(null);
          },
          (e: unknown) => {
            if (lost) return;
            lost = true;
            onLost(e);
          },
        );
      }, everyMs);
      timer.unref();
      return {
        close: async () => {
          clearInterval(timer);
          await looking;
        },
      };
    },
  };
}
