import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "model/index": "src/model/index.ts" },
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
});
