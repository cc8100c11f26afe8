import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../test-support/http.js";

const BIN = fileURLToPath(new URL("../../packages/server-koa/bin/sluice.js", import.meta.url));
const DIR = fileURLToPath(new URL("./pipelines", import.meta.url));
const deploy = (url: string) =>
  new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(process.execPath, [BIN, "deploy", DIR, "--url", url], { encoding: "utf8" }, (error, stdout) =>
      resolve({ code: error ? 1 : 0, stdout }),
    ),
  );

describe("example: pipelines-as-code", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => t?.close());

  it("deploys the directory, then finds nothing to change", async () => {
    const first = await deploy(t.baseUrl);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/created\s+example: cleanup/);
    expect(first.stdout).toMatch(/created\s+example: daily report/);
    const second = await deploy(t.baseUrl);
    expect(second.stdout).toMatch(/unchanged\s+example: daily report/);
    const report = (await t.client.pipelines.list()).find((p) => p.name === "example: daily report")!;
    const run = await t.client.runs.wait((await t.client.runs.trigger(report.id)).id, { timeoutMs: 20_000 });
    expect(run.status).toBe("success");
    expect(run.node_runs.find((n) => n.node_id === "report")?.row_count).toBe(2);
  });
});
