import type { PipelineChangeFeed } from "./cached-pipeline-store.js";
import type { SqliteStatements } from "./sqlite-statements.js";

/** How often the SQLite feed looks for writes made by another connection. */
export const DATA_VERSION_POLL_MS = 1000;

/**
 * The pipeline change feed of a SQLite file. This process's own writes of pipelines are forgotten by the cache as
 * they return; a write through any other connection (another process on the same file — one process per SQLite file
 * is the design, but an operator's `sqlite3` shell is a connection too) changes `PRAGMA data_version` of the store's
 * connection, looked at every second: then everything cached is dropped (`onChange(null)`). A failed look is a lost
 * feed (nothing is served from memory) until the next look succeeds.
 */
export function sqliteChangeFeed(sqlite: SqliteStatements, everyMs = DATA_VERSION_POLL_MS): PipelineChangeFeed {
  const dataVersion = () =>
    sqlite.use((prepare) => Number((prepare("pragma data_version").get() as { data_version: number }).data_version));
  return {
    async listen(onChange, onLost) {
      let known = await dataVersion();
      let lost = false;
      let looking: Promise<void> = Promise.resolve();
      const timer = setInterval(() => {
        looking = dataVersion().then(
          (version) => {
            if (version === known && !lost) return;
            known = version;
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
