import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePipeline, sinkFile, sourceFile, transform, union } from "../src/index.js";
import { startTestServer, type TestServer } from "../../../test-support/http.js";

/** Runs the CLI without blocking this process, which hosts the server it talks to. */
const cli = (args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

const BIN = fileURLToPath(new URL("../../server-koa/bin/sluice.js", import.meta.url));

const orders = () => {
  const a = sourceFile("a", { path: "a.csv", format: "csv" });
  const b = sourceFile("b", { path: "b.csv", format: "csv" });
  const all = union("all", {});
  const clean = transform("clean", { rules: [{ type: "deduplicate" }] }, { name: "Clean" });
  const out = sinkFile("out", { path: "out.jsonl", format: "jsonl" });
  a.to(all);
  b.to(all).to(clean).to(out);
  return definePipeline({
    name: "as-code orders",
    schedule: "0 2 * * *",
    tags: ["code"],
    nodes: [a, b, all, clean, out],
  });
};

describe("pipelines as code", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("definePipeline produces the API's JSON with edges from .to() chains", () => {
    const def = orders();
    expect(def.nodes?.map((n) => n.id)).toEqual(["a", "b", "all", "clean", "out"]);
    expect(def.nodes?.[3]).toEqual({
      id: "clean",
      type: "transform",
      name: "Clean",
      config: { rules: [{ type: "deduplicate" }] },
    });
    expect(def.edges).toEqual([
      { from: "a", to: "all" },
      { from: "b", to: "all" },
      { from: "all", to: "clean" },
      { from: "clean", to: "out" },
    ]);
    const stray = sinkFile("stray", { path: "x.csv" });
    const src = sourceFile("src", { path: "y.csv" });
    src.to(stray);
    expect(() => definePipeline({ name: "broken", nodes: [src] })).toThrow(/stray/);
  });

  it("client.pipelines.apply creates, then updates only what changed, then changes nothing", async () => {
    const first = await t.client.pipelines.apply(orders());
    expect(first.action).toBe("created");
    const again = await t.client.pipelines.apply(orders());
    expect(again).toMatchObject({ action: "unchanged", changes: [] });
    expect(again.pipeline.id).toBe(first.pipeline.id);
    const changed = await t.client.pipelines.apply({ ...orders(), schedule: "0 3 * * *" });
    expect(changed).toMatchObject({ action: "updated", changes: ["schedule"] });
    expect((await t.client.pipelines.get(first.pipeline.id)).schedule).toBe("0 3 * * *");
    const named = (await t.client.pipelines.list()).filter((p) => p.name === "as-code orders");
    expect(named).toHaveLength(1);
  });

  it("`sluice deploy DIR` applies every definition file and prints what changed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-deploy-"));
    fs.writeFileSync(path.join(dir, "one.json"), JSON.stringify({ name: "deploy-json", tags: ["a"] }));
    fs.writeFileSync(
      path.join(dir, "two.mjs"),
      `export default [{ name: "deploy-mjs-1" }, { name: "deploy-mjs-2", description: "from code" }];\n`,
    );
    fs.writeFileSync(path.join(dir, "notes.txt"), "ignored");
    const run = () => cli(["deploy", dir, "--url", t.baseUrl]);
    const first = await run();
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/created\s+deploy-json/);
    expect(first.stdout).toMatch(/created\s+deploy-mjs-2/);
    expect(first.stdout).toContain("3 pipelines applied");
    fs.writeFileSync(path.join(dir, "one.json"), JSON.stringify({ name: "deploy-json", tags: ["b"] }));
    const second = await run();
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/updated\s+deploy-json \([0-9a-f-]+\): tags/);
    expect(second.stdout).toMatch(/unchanged\s+deploy-mjs-1/);
    const bad = await cli(["deploy", path.join(dir, "missing.json"), "--url", t.baseUrl]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/^sluice: .*missing\.json/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
