/**
 * The attack (found 2026-11-27 while reviewing what runs on the server's thread): a `quality` node's `regex` check
 * ran the editor's pattern with JavaScript's backtracking engine, on the server's thread. `^(a+)+$` against a cell
 * of a's ending in "!" takes time exponential in its length: 28 characters held every request, every run and the
 * scheduler for seconds; 40 for hours. Patterns now run on RE2, in time linear in the text.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../../test-support/http.js";
import { waitForRun } from "./attack-support.js";

let t: TestServer;
let csv: string;
beforeAll(async () => {
  t = await startTestServer("sqlite");
  csv = path.join(mkdtempSync(path.join(os.tmpdir(), "sluice-redos-")), "evil.csv");
  writeFileSync(csv, `name\n${Array.from({ length: 20 }, () => `${"a".repeat(28)}!`).join("\n")}\n`);
});
afterAll(async () => t?.close());

describe("attack: a catastrophically backtracking pattern in a quality check", () => {
  it("does not hold the server: /health answers while the check runs, and the check ends", async () => {
    const created = await t.fetch("/pipelines", {
      method: "POST",
      json: {
        name: "redos",
        nodes: [
          { id: "src", type: "source_file", config: { path: csv, format: "csv" } },
          {
            id: "check",
            type: "quality",
            config: { checks: [{ type: "regex", column: "name", pattern: "^(a+)+$" }], on_failure: "warn" },
          },
        ],
        edges: [{ from: "src", to: "check" }],
      },
    });
    const { id } = (await created.json()) as { id: string };
    const triggered = (await (await t.fetch(`/pipelines/${id}/run`, { method: "POST", json: {} })).json()) as {
      id: string;
    };
    const slowest = { ms: 0 };
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      expect((await fetch(`${t.baseUrl}/api/health`)).status).toBe(200);
      slowest.ms = Math.max(slowest.ms, performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
    // each of the 20 cells alone took seconds of backtracking before
    expect(slowest.ms).toBeLessThan(1000);
    const run = await waitForRun(t, triggered.id);
    expect(run.status).toBe("success"); // on_failure: warn — every row failed the check, and said so
    const logs = await (await t.fetch(`/runs/${triggered.id}/logs`)).text();
    expect(logs).toMatch(/regex/);
  });

  it("a pattern made costly per character (counted repeats, length) is refused; matching yields to other requests", async () => {
    // a helper's attack on the RE2 fix: 16 groups of [a-z]{1000} cost 23 µs a character, 2.3 s over 100,000
    const costly = `${"([a-z]{1000})".repeat(16)}0|${"([a-z]{1000})".repeat(16)}1`;
    for (const pattern of [costly, "a".repeat(1001)]) {
      const created = await t.fetch("/pipelines", {
        method: "POST",
        json: {
          name: "costly",
          nodes: [{ id: "check", type: "quality", config: { checks: [{ type: "regex", column: "n", pattern }] } }],
        },
      });
      const { id } = (await created.json()) as { id: string };
      const res = await t.fetch(`/pipelines/${id}/run`, { method: "POST", json: {} });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toMatch(/at most 1000 characters|goes up to 100/);
    }
  });

  it("a pattern RE2 cannot run (lookaround, backreferences) is refused when the run is triggered, naming why", async () => {
    const created = await t.fetch("/pipelines", {
      method: "POST",
      json: {
        name: "lookahead",
        nodes: [
          {
            id: "check",
            type: "quality",
            config: { checks: [{ type: "regex", column: "name", pattern: "(?=a)b" }] },
          },
        ],
      },
    });
    const { id } = (await created.json()) as { id: string };
    const res = await t.fetch(`/pipelines/${id}/run`, { method: "POST", json: {} });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toMatch(/unsupported Perl syntax/);
  });
});
