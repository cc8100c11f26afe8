import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@sluice\/core\/model$/, replacement: src("./packages/core/src/model/index.ts") },
      { find: /^@sluice\/core\/operations$/, replacement: src("./packages/core/src/model/operations.ts") },
      { find: /^@sluice\/core\/event-types$/, replacement: src("./packages/core/src/model/event-types.ts") },
      { find: /^@sluice\/core\/input-rules$/, replacement: src("./packages/core/src/model/input-rules.ts") },
      { find: /^@sluice\/core$/, replacement: src("./packages/core/src/index.ts") },
      { find: /^@sluice\/server-koa$/, replacement: src("./packages/server-koa/src/index.ts") },
      { find: /^@sluice\/client$/, replacement: src("./packages/client/src/index.ts") },
    ],
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // every test process in its own working directory: nothing a test writes by default lands in the repository
    globalSetup: [src("./test-support/own-working-directory.ts")],
    setupFiles: [src("./test-support/own-working-directory.ts")],
    // *.test-d.ts files are type tests: checked by tsc, not run
    typecheck: { enabled: true, include: ["packages/*/test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    reporters: ["default"],
  },
});
