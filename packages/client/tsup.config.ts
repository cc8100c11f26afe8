import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  // the client imports only types from the model; scripts/emit-model-types.mjs prints them into dist/model.d.ts
  external: ["@sluice/core/model"],
  // plain data without zod, bundled in: the operation table (method and path per id) and the event types
  noExternal: ["@sluice/core/operations", "@sluice/core/event-types", "@sluice/core/input-rules"],
});
