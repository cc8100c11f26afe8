import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "model/index": "src/model/index.ts",
    // the operation table without its zod schemas: the client bundles it
    "model/operations": "src/model/operations.ts",
    // the streamed and terminal event types, also plain data: the client bundles them
    "model/event-types": "src/model/event-types.ts",
    "model/input-rules": "src/model/input-rules.ts",
    // the code runner runs in its own process (see sandbox/code-runner-pool.ts)
    "sandbox/code-runner": "src/sandbox/code-runner.mjs",
    // user SQL on SQLite runs in a worker process (see engine/db/sqlite-worker.ts)
    "engine/db/sqlite-worker-process": "src/engine/db/sqlite-worker-process.mjs",
    // the server's SQLite database is checkpointed in a worker thread (see store/knex/sqlite-checkpointer.ts)
    "store/knex/sqlite-checkpoint-thread": "src/store/knex/sqlite-checkpoint-thread.mjs",
  },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
});
