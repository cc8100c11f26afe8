import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

describe("@sluice/client in the browser", () => {
  it("bundles for the browser with no Node built-ins, knex or database drivers", async () => {
    const result = await build({
      entryPoints: [src("../src/index.ts")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
      alias: { "@sluice/core/model": src("../../core/src/model/index.ts") },
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.includes("client/src/client.ts"))).toBe(true);
    for (const banned of ["knex", "better-sqlite3", "node_modules/pg/", "mysql2", "koa"]) {
      expect(inputs.filter((i) => i.includes(banned))).toEqual([]);
    }
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from\s*["']node:/);
    expect(code).not.toMatch(/require\(["']node:/);
  });
});
