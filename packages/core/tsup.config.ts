import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "model/index": "src/model/index.ts",
    // the code runner runs in its own process (see sandbox/code-runner-pool.ts)
    "sandbox/code-runner": "src/sandbox/code-runner.mjs",
  },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
});
