import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { tempDir } from "../../../test-support/databases.js";

let t: TestServer;
let root: string;
beforeAll(async () => {
  root = tempDir();
  t = await startTestServer("sqlite", { fileRoots: [root] });
});
afterAll(async () => t?.close());

const run = async (pipeline: Record<string, unknown>, params: Record<string, string> = {}) => {
  const p = (await (await t.fetch("/pipelines", { method: "POST", json: pipeline })).json()) as { id: string };
  const accepted = await t.fetch(`/pipelines/${p.id}/run`, { method: "POST", json: { params } });
  expect(accepted.status).toBe(202);
  const { id } = (await accepted.json()) as { id: string };
  return t.client.runs.wait(id, { timeoutMs: 20_000 });
};

describe("file pipelines through the HTTP API", () => {
  it("source_file → transform → join → quality → sink_file writes properly quoted CSV and JSONL", async () => {
    fs.writeFileSync(path.join(root, "orders.csv"), 'id,customer,amount\n1,1,"10.5"\n2,2,3\n2,2,3\n3,1,"7,25"\n');
    fs.writeFileSync(
      path.join(root, "customers.jsonl"),
      '{"customer":1,"name":"Ada \\"The\\" Great, Esq."}\n{"customer":2,"name":"Bob"}\n',
    );
    const result = await run(
      {
        name: "files e2e",
        nodes: [
          { id: "orders", type: "source_file", config: { path: "orders.csv", format: "csv" } },
          { id: "customers", type: "source_file", config: { path: "customers.jsonl", format: "jsonl" } },
          {
            id: "clean",
            type: "transform",
            config: {
              rules: [
                { type: "deduplicate" },
                { type: "replace", column: "amount", search: ",", replacement: "." },
                { type: "cast", columns: ["amount", "customer"], to: "float" },
              ],
            },
          },
          { id: "joined", type: "join", config: { how: "inner", on: "customer" } },
          { id: "check", type: "quality", config: { checks: [{ type: "not_null", column: "name" }] } },
          { id: "csv", type: "sink_file", config: { path: "out/${param.day}.csv", format: "csv" } },
          { id: "jsonl", type: "sink_file", config: { path: "out/${param.day}.jsonl" } },
        ],
        edges: [
          { from: "orders", to: "clean" },
          { from: "clean", to: "joined" },
          { from: "customers", to: "joined" },
          { from: "joined", to: "check" },
          { from: "check", to: "csv" },
          { from: "check", to: "jsonl" },
        ],
      },
      { day: "2026-11-22" },
    );
    expect(result.status).toBe("success");
    expect(result.node_runs.find((n) => n.node_id === "csv")).toMatchObject({ status: "success", row_count: 3 });
    expect(fs.readFileSync(path.join(root, "out/2026-11-22.csv"), "utf8")).toBe(
      'customer,id,amount,name\n1,1,10.5,"Ada ""The"" Great, Esq."\n2,2,3,Bob\n1,3,7.25,"Ada ""The"" Great, Esq."\n',
    );
    const lines = fs
      .readFileSync(path.join(root, "out/2026-11-22.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.amount)).toEqual([10.5, 3, 7.25]);
    const preview = (await (await t.fetch(`/runs/${result.id}/nodes/joined/preview`)).json()) as { rows: unknown[] };
    expect(preview.rows).toHaveLength(3);
  });

  it("refuses paths outside the file roots (.. and symlinks) and fails the node with a clear error", async () => {
    fs.symlinkSync("/etc", path.join(root, "escape"));
    for (const hostile of ["../outside.csv", "escape/passwd-copy.csv", "/etc/hostname.csv"]) {
      const result = await run({
        name: `hostile ${hostile}`,
        nodes: [
          { id: "gen", type: "code", config: { code: "return [{ a: 1 }];" } },
          { id: "out", type: "sink_file", config: { path: hostile } },
        ],
        edges: [{ from: "gen", to: "out" }],
      });
      expect(result.status).toBe("failed");
      expect(result.node_runs.find((n) => n.node_id === "out")?.error).toMatch(/outside the allowed file roots/);
    }
    expect(fs.existsSync(path.join(path.dirname(root), "outside.csv"))).toBe(false);
  });
});
