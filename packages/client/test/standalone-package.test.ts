/**
 * `@sluice/client` as an npm user gets it: packed with `npm pack`, installed offline into an empty directory, then
 * used from Node against a real server, bundled for the browser and type-checked — with neither @sluice/core nor zod
 * installed next to it.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

const run = promisify(execFile);
const clientDir = fileURLToPath(new URL("..", import.meta.url));
const tscPath = fileURLToPath(new URL("../../../node_modules/typescript/lib/tsc.js", import.meta.url));
const MAX_RUNTIME_DEPENDENCIES = 3;
const MAX_INSTALL_BYTES = 1024 * 1024;
const MAX_BROWSER_BUNDLE_BYTES = 60 * 1024;

/** npm with the environment of a user's shell: no npm_config_* inherited from a surrounding `npm test`. */
function npm(args: string[], cwd: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")));
  return run("npm", args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe("@sluice/client installed from its packed tarball", { timeout: 60_000 }, () => {
  let root: string | undefined;
  /** The consumer project the tarball is installed into. */
  let dir: string;
  let installed: string;

  beforeAll(async () => {
    if (!existsSync(join(clientDir, "dist", "index.js")) || !existsSync(join(clientDir, "dist", "model.d.ts"))) {
      await npm(["run", "build"], clientDir);
    }
    root = await mkdtemp(join(tmpdir(), "sluice-client-install-"));
    const { stdout } = await npm(["pack", "--json", "--ignore-scripts", "--pack-destination", root], clientDir);
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    dir = join(root, "consumer");
    await mkdir(dir);
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    await npm(["install", "--offline", "--no-audit", "--no-fund", join(root, filename)], dir);
    installed = join(dir, "node_modules", "@sluice", "client");
  }, 180_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("installs alone: no @sluice/core, at most 3 runtime dependencies, no native module, at most 1 MB", async () => {
    const manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    const runtime = Object.keys({
      ...(manifest.dependencies ?? {}),
      ...(manifest.optionalDependencies ?? {}),
      ...(manifest.peerDependencies ?? {}),
    });
    expect(runtime.length).toBeLessThanOrEqual(MAX_RUNTIME_DEPENDENCIES);
    expect(runtime).not.toContain("@sluice/core");

    const files = await filesUnder(join(dir, "node_modules"));
    expect(files.filter((f) => f.endsWith(".node") || f.endsWith("binding.gyp"))).toEqual([]);
    expect(existsSync(join(dir, "node_modules", "@sluice", "core"))).toBe(false);
    expect(existsSync(join(dir, "node_modules", "zod"))).toBe(false);
    const sizes = await Promise.all(files.map(async (f) => (await stat(f)).size));
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MAX_INSTALL_BYTES);
  });

  describe("against a real server", () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
    });
    afterAll(async () => server?.close());

    it("runs in Node", async () => {
      const script = [
        'import { SluiceClient } from "@sluice/client";',
        "const client = new SluiceClient({ baseUrl: process.argv[2] });",
        "const setup = await client.auth.setup();",
        "const info = await client.system.info();",
        "console.log(JSON.stringify({ setup, store: info.store }));",
      ].join("\n");
      await writeFile(join(dir, "check.mjs"), script);
      const { stdout } = await run(process.execPath, ["check.mjs", server.baseUrl], { cwd: dir });
      expect(JSON.parse(stdout)).toMatchObject({ setup: { needs_setup: true }, store: expect.anything() });
    });
  });

  it("bundles for the browser (esbuild, minified) to at most 60 kB without node: imports", async () => {
    await writeFile(join(dir, "browser-entry.js"), 'export * from "@sluice/client";\n');
    const result = await build({
      absWorkingDir: dir,
      entryPoints: ["browser-entry.js"],
      bundle: true,
      platform: "browser",
      format: "esm",
      minify: true,
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs).filter((i) => i !== "browser-entry.js");
    expect(inputs.filter((i) => !i.startsWith("node_modules/@sluice/client/"))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).toContain("SluiceClient");
    expect(code).not.toMatch(/["']node:/);
    expect(Buffer.byteLength(code)).toBeLessThanOrEqual(MAX_BROWSER_BUNDLE_BYTES);
  });

  it("gives a TypeScript consumer the full model types without zod or @sluice/core", async () => {
    await writeFile(
      join(dir, "good.ts"),
      [
        "import { SluiceClient, definePipeline, sourceDb } from '@sluice/client';",
        "import type { Pipeline, PipelineCreate, RunStatus } from '@sluice/client';",
        'const client = new SluiceClient({ baseUrl: "http://127.0.0.1:1" });',
        'type NodeConfig = Pipeline["nodes"][number]["config"];',
        'export const config: NodeConfig = { conn_id: "warehouse" };',
        'const node = { id: "a", type: "sql", config: { sql: "select 1" } };',
        'export const create: PipelineCreate = { name: "orders", nodes: [node] };',
        'const extract = sourceDb("a", { conn_id: "c", query: "q" });',
        'export const built: PipelineCreate = definePipeline({ name: "x", nodes: [extract] });',
        "export async function describe(id: string): Promise<string> {",
        "  const pipeline = await client.pipelines.get(id);",
        "  const parallelism: number | null = pipeline.parallelism;",
        "  const status: RunStatus | undefined = (await client.runs.list(id))[0]?.status;",
        '  return `${pipeline.nodes[0]?.id ?? pipeline.name} ${parallelism ?? ""} ${status ?? ""}`;',
        "}",
      ].join("\n"),
    );
    await writeFile(
      join(dir, "bad.ts"),
      [
        'import { SluiceClient, type Pipeline, type PipelineCreate } from "@sluice/client";',
        'const client = new SluiceClient({ baseUrl: "http://127.0.0.1:1" });',
        'export const create: PipelineCreate = { name: "orders", nodez: [] };',
        'export const config: Pipeline["nodes"][number]["config"] = "not an object";',
        "export const parallelism = (p: Pipeline): string => p.parallelism;",
        'export const trigger = client.runs.trigger("id", { date: 20260101 });',
      ].join("\n"),
    );
    const tsc = [tscPath, "--noEmit", "--strict", "--module", "nodenext", "--target", "es2022", "good.ts", "bad.ts"];
    const failed = await run(process.execPath, tsc, { cwd: dir }).then(
      () => null,
      (error: { stdout: string }) => error.stdout,
    );
    expect(failed, "bad.ts must not type-check").not.toBeNull();
    const errors = failed!.split("\n").filter((line) => /error TS\d+/.test(line));
    expect(errors.filter((line) => !line.startsWith("bad.ts("))).toEqual([]);
    const lines = new Set(errors.map((line) => Number(/^bad\.ts\((\d+),/.exec(line)![1])));
    expect([...lines].sort((a, b) => a - b)).toEqual([3, 4, 5, 6]);
    expect(failed).toMatch(/'nodez' does not exist in type/);
  });
});
