import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// The UI is static files served by `sluice serve` at `/`; in development (`npm run dev -w @sluice/web`) Vite proxies
// the API and the event stream to a server on :8080 (or SLUICE_DEV_API).
const api = process.env.SLUICE_DEV_API ?? "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [react()],
  // the client from source, with the zod-free contract it bundles (the UI never loads zod or the server)
  resolve: {
    alias: [
      { find: /^@sluice\/client$/, replacement: src("../client/src/index.ts") },
      { find: /^@sluice\/core\/operations$/, replacement: src("../core/src/model/operations.ts") },
      { find: /^@sluice\/core\/event-types$/, replacement: src("../core/src/model/event-types.ts") },
      { find: /^@sluice\/core\/input-rules$/, replacement: src("../core/src/model/input-rules.ts") },
    ],
  },
  // relative: the server rewrites index.html for where it is served (the root, or an embedder's mount path)
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    // routes are split (React.lazy); the graph libraries are their own chunks, loaded by the views that draw graphs
    chunkSizeWarningLimit: 900,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/ },
            { name: "flow", test: /node_modules[\\/](@xyflow|d3-[a-z]+|zustand|classcat)[\\/]/ },
          ],
        },
      },
    },
  },
  worker: { format: "es" },
  server: {
    proxy: {
      "/api": { target: api, ws: true },
      "/ws": { target: api, ws: true },
      "/health": api,
    },
  },
});
