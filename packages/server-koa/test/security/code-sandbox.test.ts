import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTerminalRunStatus } from "../../../core/src/index.js";
import { tempDir } from "../../../../test-support/databases.js";

/*
 * The attacks an editor would send in a `code` node, against a real `sluice serve` process. Each one must fail (or
 * return nothing of the server), and none of the server's pid, its environment (a canary variable), the secrets key
 * or the JWT secret may appear in the run, its logs, node errors, previews or DLQ; `/health` keeps answering within
 * a second while the attack runs.
 */
const BIN = fileURLToPath(new URL("../../bin/sluice.js", import.meta.url));
const CANARY = `canary-${randomBytes(8).toString("hex")}`;

let child: ChildProcess;
let base: string;
let dir: string;
let serverPid: number;
let keyFile: string;
let secrets: string[];

beforeAll(async () => {
  dir = tempDir();
  child = spawn(
    process.execPath,
    [BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", path.join(dir, "sluice.db")],
    {
      cwd: dir,
      env: { ...process.env, SLUICE_SANDBOX_CANARY: CANARY },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  base = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+?)\/api/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.resume();
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  serverPid = child.pid as number;
  keyFile = path.join(dir, "sluice.db.key");
  const key = fs.readFileSync(keyFile, "utf8").trim();
  const jwt = fs.readFileSync(path.join(dir, ".svc-jwt-secret"), "utf8").trim();
  secrets = [CANARY, key, jwt];
}, 30_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
});

const api = async (p: string, init: { method?: string; json?: unknown } = {}) => {
  const res = await fetch(`${base}/api${p}`, {
    method: init.method ?? "GET",
    headers: init.json === undefined ? {} : { "content-type": "application/json" },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: res.status, text: await res.text() };
};

/** Polls `/health` until `done` settles; resolves with the slowest answer in ms. */
async function slowestHealth(done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true));
  let slowest = 0;
  while (!finished) {
    const started = performance.now();
    const res = await fetch(`${base}/health`);
    await res.text();
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((r) => setTimeout(r, 25));
  }
  return slowest;
}

interface Outcome {
  status: string;
  error: string;
  /** Everything a user can read about the run: run, logs, preview, DLQ. */
  visible: string;
  slowestHealthMs: number;
}

/** Runs a pipeline of one `code` node (fed by a small source) and collects what anyone could read about it. */
async function attack(code: string, config: Record<string, unknown> = {}): Promise<Outcome> {
  const created = await api("/pipelines", {
    method: "POST",
    json: {
      name: `attack ${randomBytes(4).toString("hex")}`,
      nodes: [
        { id: "src", type: "code", config: { code: "return [{ id: 1, name: 'a' }, { id: 2, name: 'b' }];" } },
        { id: "evil", type: "code", config: { timeout: 3, ...config, code } },
      ],
      edges: [{ from: "src", to: "evil" }],
    },
  });
  expect(created.status).toBe(201);
  const pipeline = JSON.parse(created.text) as { id: string };
  const triggered = await api(`/pipelines/${pipeline.id}/run`, { method: "POST", json: {} });
  expect(triggered.status).toBe(202);
  const runId = (JSON.parse(triggered.text) as { id: string }).id;
  const finished = (async () => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const run = JSON.parse((await api(`/runs/${runId}`)).text) as { status: string };
      if (isTerminalRunStatus(run.status)) return run;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the run did not finish");
  })();
  const slowestHealthMs = await slowestHealth(finished);
  const run = (await finished) as { status: string; node_runs: { node_id: string; error: string | null }[] };
  const parts = [
    JSON.stringify(run),
    (await api(`/runs/${runId}/logs`)).text,
    (await api(`/runs/${runId}/logs/export`)).text,
    (await api(`/runs/${runId}/nodes/evil/preview`)).text,
    (await api(`/runs/${runId}/nodes/evil/profile`)).text,
    (await api(`/pipelines/${pipeline.id}/dlq?include_resolved=true`)).text,
  ];
  return {
    status: run.status,
    error: run.node_runs.find((n) => n.node_id === "evil")?.error ?? "",
    visible: parts.join("\n"),
    slowestHealthMs,
  };
}

function expectNothingLeaked(outcome: Outcome): void {
  for (const secret of secrets) expect(outcome.visible).not.toContain(secret);
  // The escapes hand the pid out as a row's `pid` field. A bare number would also match honest output: in a fresh
  // container the server's pid is small, and the console flood keeps "flood 0" … "flood 999".
  expect(outcome.visible).not.toMatch(new RegExp(`"pid":\\s*${serverPid}(?![0-9])`));
  expect(outcome.visible).not.toMatch(/root:x:0:0/);
  // a stall of the server's thread by an attack lasts its node's timeout (2–3 s) or the whole parse of what it returns;
  // one late answer on a busy 2-core machine (client, server and other test files share it) takes a few hundred ms
  expect(outcome.slowestHealthMs).toBeLessThanOrEqual(1000);
}

/** What each escape tries to do once it holds the host's `process`. */
const STEAL =
  "({ pid: p.pid, env: JSON.stringify(p.env), key: p.getBuiltinModule ? p.getBuiltinModule('node:fs').readFileSync(KEY, 'utf8') : p.mainModule.require('fs').readFileSync(KEY, 'utf8') })";
const withKey = (code: string) => `const KEY = ${JSON.stringify(path.join("KEYDIR", "sluice.db.key"))}; ${code}`;

describe("code node sandbox: escapes an editor would try", () => {
  const escapes: Record<string, string> = {
    "params.constructor.constructor": `const p = params.constructor.constructor('return process')(); return [${STEAL}];`,
    "this.constructor.constructor": `const p = this.constructor.constructor('return process')(); return [${STEAL}];`,
    "rows.constructor.constructor": `const p = rows.constructor.constructor('return process')(); return [${STEAL}];`,
    "console.log.constructor": `const p = console.log.constructor('return process')(); return [${STEAL}];`,
    "setTimeout.constructor": `const p = setTimeout.constructor('return process')(); return [${STEAL}];`,
    "an async function's constructor": `const p = await (async () => {}).constructor('return process')(); return [${STEAL}];`,
    "a caught error's constructor": `try { null.x; } catch (e) { const p = e.constructor.constructor('return process')(); return [${STEAL}]; }`,
    "globalThis.process": `const p = globalThis.process; return [${STEAL}];`,
    require: `const p = { pid: 0, env: {}, mainModule: { require } }; return [${STEAL}];`,
    "dynamic import()": `const fs = await import('node:fs'); return [{ key: fs.readFileSync(KEY, 'utf8') }];`,
    "Error.prepareStackTrace reaching host frames": `
      Error.prepareStackTrace = (e, frames) => frames.map((f) => { try { return [f.getThis(), f.getFunction()]; } catch { return null; } });
      const frames = new Error().stack;
      let p;
      for (const pair of frames || []) for (const o of pair || []) { try { p = p || o.constructor.constructor('return process')(); } catch {} }
      return [${STEAL}];`,
    "an error thrown from a timer callback": `
      const p = await new Promise((resolve, reject) => setTimeout(() => { try { resolve(setTimeout.constructor('return process')()); } catch (e) { reject(e); } }, 1));
      return [${STEAL}];`,
  };
  for (const [name, code] of Object.entries(escapes)) {
    it(`refuses ${name}`, async () => {
      const outcome = await attack(withKey(code).replace("KEYDIR", dir));
      expect(outcome.status).toBe("failed");
      expect(outcome.error).toMatch(/code threw|code failed/);
      expectNothingLeaked(outcome);
    });
  }

  it("keeps prototype pollution of the rows and params it hands in away from the server and later runs", async () => {
    const outcome = await attack(
      "Object.prototype.polluted = 'yes'; rows[0].__proto__.isAdmin = true; params.__proto__.role = 'superadmin'; Array.prototype.push = () => 0; return rows;",
    );
    expect(outcome.status).toBe("success");
    expectNothingLeaked(outcome);
    const pipelines = await api("/pipelines");
    expect(pipelines.text).not.toMatch(/polluted|isAdmin|superadmin/);
    const clean = await attack("return [{ seen: String(({}).polluted) + String(([]).isAdmin) }];");
    expect(clean.status).toBe("success");
    expect(clean.visible).toContain("undefinedundefined");
  });

  it("keeps the server up when code replaces the functions that hand its result out", async () => {
    const outcome = await attack(
      `globalThis.__collect = () => { globalThis.__nextBatch = () => "{bad"; return null; };
       globalThis.__nextBatch = () => "5";
       return [{ ok: 1 }];`,
    );
    expect(outcome.status).toBe("success");
    expect(outcome.visible).toContain('"ok":1');
    expectNothingLeaked(outcome);
  });

  it("keeps its own built-ins when code replaces JSON.stringify, Array.isArray and Promise", async () => {
    const outcome = await attack(
      `JSON.stringify = () => "5"; Array.isArray = () => true; Array.prototype.slice = () => 7;
       Promise.prototype.then = function () { return 42; };
       return [{ ok: 2 }];`,
    );
    expect(outcome.status).toBe("success");
    expect(outcome.visible).toContain('"ok":2');
    expectNothingLeaked(outcome);
  });

  it("offers no WebAssembly, whose memory memory_mb could not bound", async () => {
    const outcome = await attack(
      "const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); m.grow(49000); return rows;",
      { memory_mb: 32 },
    );
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/WebAssembly is not defined/);
    expectNothingLeaked(outcome);
  });

  it("refuses an output row too large to parse without stalling the server", async () => {
    const outcome = await attack('return [{ s: "x".repeat(2 ** 26) }];', { memory_mb: 1024 });
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/row larger than 8 MB/);
    expectNothingLeaked(outcome);
  });

  it("stops an endless loop at the node timeout", async () => {
    const outcome = await attack("for (;;) {}", { timeout: 2 });
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/timed out/);
    expectNothingLeaked(outcome);
  });

  it("stops a SharedArrayBuffer / Atomics.wait hang at the node timeout", async () => {
    const outcome = await attack(
      "const a = new Int32Array(new SharedArrayBuffer(16)); Atomics.wait(a, 0, 0); return rows;",
      { timeout: 2 },
    );
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/timed out|not allowed|SharedArrayBuffer|Atomics/);
    expectNothingLeaked(outcome);
  });

  it("stops a memory bomb at memory_mb", async () => {
    const outcome = await attack("const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()));", {
      memory_mb: 64,
    });
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/out of memory/);
    expectNothingLeaked(outcome);
  });

  it("refuses an output of 10 million rows", async () => {
    const outcome = await attack("const row = { a: 1 }; return new Array(10_000_000).fill(row);", { memory_mb: 512 });
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/10000000 rows; at most/);
    expectNothingLeaked(outcome);
  });

  it("caps a console.log flood", async () => {
    const outcome = await attack("for (let i = 0; i < 200000; i++) console.log('flood ' + i); return rows;");
    expect(outcome.status).toBe("success");
    const logs = JSON.parse(
      (await api(`/runs/${JSON.parse(outcome.visible.split("\n")[0]!).id}/logs?node_id=evil`)).text,
    ) as { message: string }[];
    expect(logs.filter((l) => l.message.startsWith("flood ")).length).toBe(1000);
    expect(logs.some((l) => /199000 more console lines were dropped/.test(l.message))).toBe(true);
    expectNothingLeaked(outcome);
  });

  it("still runs honest code after every attack, with rows, params and timers", async () => {
    const outcome = await attack(
      "await new Promise((r) => setTimeout(r, 10)); return rows.map((r) => ({ ...r, twice: r.id * 2, seen: inputs.length }));",
    );
    expect(outcome.status).toBe("success");
    expect(outcome.visible).toContain('"twice":4');
  });
});
