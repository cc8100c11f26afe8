// The web UI at size, in a real browser (playwright-core driving Debian's chromium) against a real `sluice serve`:
// 1,000 pipelines in the list, a 100-run × 50-node grid, a 500-node graph, and the initial JavaScript's gzipped size.
// Targets: list and grid ≤ 1 s, no freeze while the 500-node graph lays out, initial JS ≤ 300 kB gzipped.
// See bench/ui-at-size.md. Needs the UI built (`npm run build -w @sluice/web`) and the server built (`npm run build`).
//
//   node bench/ui-at-size.mjs                       spawn a server on a free port with a fresh database
//   node bench/ui-at-size.mjs --api URL [--ui URL]  seed and measure an existing open-mode server (no users yet);
//                                                   --ui when the UI is served elsewhere (e.g. `vite preview`)
//                                                   --dir DIR: a directory inside that server's file roots
//   --dist DIR (default packages/web/dist: the build whose initial JS is sized)
//   --runs N (default 3)   --chromium PATH (default /usr/bin/chromium, or $CHROMIUM)   --screenshots DIR
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { answerHelp } from "./lib/help.mjs";

answerHelp();

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    api: { type: "string" },
    ui: { type: "string" },
    runs: { type: "string", default: "3" },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
    screenshots: { type: "string" },
    dir: { type: "string" },
    dist: { type: "string" },
  },
});
const RUNS = Math.max(1, Number(opts.runs) || 3);
const PIPELINES = 1000;
const GRID_NODES = 50;
const GRID_RUNS = 100;
const BIG_NODES = 500;
const USER = { username: "bench", password: "bench-password-1234" };
const TARGET_MS = 1000;
const TARGET_JS_KB = 300;
/** A main-thread task this long or longer is a freeze (the page ignores input for it). */
const FREEZE_MS = 200;

const distDir = path.resolve(opts.dist ?? path.join(root, "packages/web/dist"));
const log = (...a) => console.log(...a);

function skip(reason) {
  log(`ui-at-size: skipped: ${reason}`);
  process.exit(0);
}

// ---------------------------------------------------------------- initial JS size (no browser, no server)
function initialJs() {
  const html = fs.readFileSync(path.join(distDir, "index.html"), "utf8");
  const refs = new Set();
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) {
    const src = /\bsrc="([^"]+)"/.exec(tag)?.[1];
    if (src && /type="module"/.test(tag)) refs.add(src);
  }
  for (const tag of html.match(/<link\b[^>]*>/g) ?? []) {
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
    if (href && /rel="modulepreload"/.test(tag)) refs.add(href);
  }
  const files = [...refs].map((ref) => {
    const file = path.join(distDir, ref.replace(/^\.?\//, ""));
    const buf = fs.readFileSync(file);
    return { ref, raw: buf.length, gzip: zlib.gzipSync(buf).length };
  });
  return { files, raw: files.reduce((s, f) => s + f.raw, 0), gzip: files.reduce((s, f) => s + f.gzip, 0) };
}

// ---------------------------------------------------------------- server
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitUp(base, child) {
  const t0 = Date.now();
  while (Date.now() - t0 < 30_000) {
    if (child && child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`the server at ${base} did not answer /health within 30 s`);
}

async function startServer(dir) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "packages/server-koa/bin/sluice.js",
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--db",
      path.join(dir, "sluice.db"),
      "--file-roots",
      dir,
    ],
    { cwd: root, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, SLUICE_LOG_LEVEL: "warn" } },
  );
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitUp(base, child);
  } catch (e) {
    child.kill();
    throw new Error(`${e.message}\n${stderr}`);
  }
  return { base, child };
}

// ---------------------------------------------------------------- seeding through the API
let token = "";
async function api(base, method, p, body) {
  const res = await fetch(`${base}/api${p}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function pool(items, width, fn) {
  let next = 0;
  const workers = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(workers);
}

const pad = (n) => String(n).padStart(4, "0");

async function seed(base, dir) {
  const t0 = Date.now();
  const setup = await api(base, "GET", "/auth/setup");
  if (setup?.needs_setup) await api(base, "POST", "/auth/users", { ...USER, role: "admin" });
  token = (await api(base, "POST", "/auth/login", USER)).token;

  const csv = path.join(dir, "bench-input.csv");
  fs.writeFileSync(
    csv,
    ["id,name,amount", ...Array.from({ length: 20 }, (_, i) => `${i},row ${i},${i * 3}`)].join("\n"),
  );
  const source = (id) => ({ id, name: "read input", type: "source_file", config: { path: csv, format: "csv" } });
  const transform = (id, i) => ({
    id,
    name: `step ${i}`,
    type: "transform",
    config: { rules: [{ type: "deduplicate", columns: ["id"] }] },
  });

  // 1,000 small pipelines (a source and a transform each)
  await pool(
    Array.from({ length: PIPELINES }, (_, i) => i),
    16,
    (i) =>
      api(base, "POST", "/pipelines", {
        name: `bench pipeline ${pad(i)}`,
        description: "ui-at-size benchmark",
        tags: [`group-${i % 10}`],
        nodes: [source("read"), transform("clean", 1)],
        edges: [{ from: "read", to: "clean" }],
      }),
  );

  // one pipeline of 50 nodes (a chain) with 100 finished runs
  const chain = [source("n0"), ...Array.from({ length: GRID_NODES - 1 }, (_, i) => transform(`n${i + 1}`, i + 1))];
  const grid = await api(base, "POST", "/pipelines", {
    name: `bench grid ${GRID_NODES} nodes`,
    nodes: chain,
    edges: chain.slice(1).map((n, i) => ({ from: `n${i}`, to: n.id })),
  });
  await pool(
    Array.from({ length: GRID_RUNS }, (_, i) => i),
    8,
    () => api(base, "POST", `/pipelines/${grid.id}/run`, {}),
  );
  const deadline = Date.now() + 180_000;
  for (;;) {
    const page = await api(base, "GET", `/pipelines/${grid.id}/runs?page=1&per_page=${GRID_RUNS}`);
    const runs = Array.isArray(page) ? page : page.items;
    const done = runs.filter((r) => !["pending", "running", "queued"].includes(r.status));
    if (runs.length >= GRID_RUNS && done.length >= GRID_RUNS) {
      const failed = done.filter((r) => r.status !== "success").length;
      if (failed) log(`  note: ${failed} of the ${GRID_RUNS} grid runs did not succeed`);
      break;
    }
    if (Date.now() > deadline) throw new Error(`only ${done.length}/${GRID_RUNS} runs finished in 180 s`);
    await new Promise((r) => setTimeout(r, 300));
  }

  // one pipeline of 500 nodes (a binary tree fanning out from one source), validated, never run
  const big = [source("b0"), ...Array.from({ length: BIG_NODES - 1 }, (_, i) => transform(`b${i + 1}`, i + 1))];
  const bigPipeline = await api(base, "POST", "/pipelines", {
    name: `bench graph ${BIG_NODES} nodes`,
    nodes: big,
    edges: big.slice(1).map((n, i) => ({ from: `b${Math.floor(i / 2)}`, to: n.id })),
  });
  const validation = await api(base, "GET", `/pipelines/${bigPipeline.id}/validate`);
  if (!validation.valid) throw new Error(`the ${BIG_NODES}-node pipeline is invalid: ${validation.errors.join("; ")}`);
  log(`  seeded ${PIPELINES + 2} pipelines and ${GRID_RUNS} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { gridId: grid.id, bigId: bigPipeline.id };
}

// ---------------------------------------------------------------- browser
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// Conditions evaluated in the page on every animation frame; each returns performance.now() (ms since the
// navigation started) once what it waits for is on screen, else false.
const READY = {
  /** the list knows all 1,000 rows (aria-rowcount on the virtualized table) and draws some of them */
  list: (n) => {
    const rows = document.querySelectorAll("[data-pipeline-id]").length;
    const declared = Math.max(
      0,
      ...[...document.querySelectorAll("table[aria-rowcount], [role=grid][aria-rowcount]")].map(
        (t) => Number(t.getAttribute("aria-rowcount")) - 1,
      ),
    );
    return rows > 0 && Math.max(rows, declared) >= n ? performance.now() : false;
  },
  /**
   * the runs × nodes grid knows all its rows (aria-rowcount; rows are virtualized), every drawn row has all its cells,
   * the drawn rows fill the visible area, and no cell is still loading
   */
  grid: ({ runs, nodes }) => {
    const grid = document.querySelector('[aria-label="Runs by node"]');
    if (!grid || Number(grid.getAttribute("aria-rowcount")) < runs + 1) return false;
    const drawn = grid.querySelectorAll("[role=row]").length - 1;
    const cells = grid.querySelectorAll("[role=gridcell]").length;
    const box = grid.parentElement;
    const filled = drawn >= Math.min(runs, Math.floor((box?.clientHeight ?? 0) / 26));
    const loading = grid.querySelector('[class*="loading"]');
    return drawn > 0 && filled && cells === drawn * nodes && !loading ? performance.now() : false;
  },
  /** the graph (by its aria-label) is laid out and its nodes are drawn */
  graph: (label) => {
    const graph = document.querySelector(`[aria-label="${label}"]`);
    if (!graph || graph.getAttribute("data-laid-out") === "false") return false;
    return graph.querySelector(".react-flow__node") ? performance.now() : false;
  },
};

async function clickTab(page, name) {
  // the pipeline page may open on another tab: click the one named (ignored when there is none)
  try {
    const tab = page.getByRole("tab", { name });
    await tab.first().click({ timeout: 4000 });
  } catch {
    // no such tab: the view shows it directly
  }
}

/** Navigates and waits for `condition`; null (and a note of what was awaited) when it never holds. */
async function measure(page, url, condition, arg, tab, waitedFor) {
  await page.goto(url, { waitUntil: "commit" });
  const ready = page.waitForFunction(condition, arg, { polling: "raf", timeout: 30_000 });
  // the click runs beside the wait; it is awaited before the next case, so it can never land on the next page
  const clicking = tab ? clickTab(page, tab) : Promise.resolve();
  try {
    const ms = await (await ready).jsonValue();
    await clicking;
    const longest = await page.evaluate((until) => {
      const tasks = (window.__benchLongTasks ?? []).filter((t) => t.start <= until);
      return tasks.reduce((m, t) => Math.max(m, t.duration), 0);
    }, ms);
    return { ms, longest };
  } catch (e) {
    await clicking;
    log(`  not shown within 30 s: ${url} (waited for ${waitedFor}): ${String(e.message).split("\n")[0]}`);
    if (opts.screenshots)
      await page.screenshot({ path: path.join(opts.screenshots, `bench-not-shown-${Date.now()}.png`) });
    return null;
  }
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const fmt = ({ min, median, max }) => `min ${min.toFixed(0)} / median ${median.toFixed(0)} / max ${max.toFixed(0)} ms`;

async function main() {
  if (!fs.existsSync(path.join(distDir, "index.html")))
    skip("packages/web/dist is missing (npm run build -w @sluice/web)");
  if (!fs.existsSync(opts.chromium)) skip(`no chromium at ${opts.chromium} (apt-get install -y chromium)`);
  let chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch {
    skip("playwright-core is not installed");
  }

  const js = initialJs();
  const dir = fs.mkdtempSync(path.join(opts.dir ?? os.tmpdir(), "sluice-ui-bench-"));
  let server;
  let browser;
  try {
    let apiBase = opts.api?.replace(/\/+$/, "");
    if (!apiBase) {
      server = await startServer(dir);
      apiBase = server.base;
    }
    const ui = (opts.ui ?? apiBase).replace(/\/+$/, "");
    for (const u of [apiBase, ui]) {
      if (new URL(u).hostname !== "127.0.0.1") throw new Error(`only 127.0.0.1 is measured, not ${u}`);
    }
    log(`ui-at-size: server ${apiBase}${ui !== apiBase ? `, UI ${ui}` : ""}; seeding…`);
    const { gridId, bigId } = await seed(apiBase, dir);

    browser = await chromium.launch({ executablePath: opts.chromium, args: CHROMIUM_ARGS, headless: true });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    // traffic stays on 127.0.0.1
    await context.route(
      (url) => url.hostname !== "127.0.0.1",
      (route) => route.abort(),
    );
    await context.addInitScript(() => {
      window.__benchLongTasks = [];
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__benchLongTasks.push({ start: e.startTime, duration: e.duration });
        }).observe({ type: "longtask", buffered: true });
      } catch {
        // no longtask support: the longest task reads 0
      }
    });
    const page = await context.newPage();
    await page.goto(`${ui}/login`, { waitUntil: "domcontentloaded" });
    await page.evaluate(async (user) => {
      const res = await fetch("/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(user),
        credentials: "same-origin",
      });
      if (!res.ok) throw new Error(`login: ${res.status} ${await res.text()}`);
    }, USER);

    const shot = async (i, name) => {
      if (opts.screenshots && i === 0)
        await page.screenshot({ path: path.join(opts.screenshots, `bench-${name}.png`) });
    };
    const cases = [
      {
        name: "list",
        title: `pipelines list, ${PIPELINES} rows`,
        url: `${ui}/pipelines?size=${PIPELINES}`,
        ready: READY.list,
        arg: PIPELINES,
        waitedFor: `${PIPELINES} rows: [data-pipeline-id] rows, or aria-rowcount on the table`,
        target: TARGET_MS,
      },
      {
        name: "grid",
        title: `runs × nodes grid, ${GRID_RUNS}×${GRID_NODES}`,
        url: `${ui}/pipelines/${gridId}?tab=grid`,
        ready: READY.grid,
        arg: { runs: GRID_RUNS, nodes: GRID_NODES },
        tab: /grid|runs by node/i,
        waitedFor: `[aria-label="Runs by node"] with aria-rowcount ${GRID_RUNS + 1}, the visible rows drawn with ${GRID_NODES} [role=gridcell] each, no *loading* class`,
        target: TARGET_MS,
      },
      {
        name: "graph",
        title: `${BIG_NODES}-node pipeline graph laid out + drawn`,
        url: `${ui}/pipelines/${bigId}`,
        ready: READY.graph,
        arg: "Pipeline graph",
        tab: /^graph$/i,
        waitedFor: '[aria-label="Pipeline graph"]:not([data-laid-out="false"]) .react-flow__node',
        freeze: true,
      },
      {
        name: "lineage",
        title: `lineage graph, ${PIPELINES + 3} nodes (${PIPELINES + 2} pipelines, 1 file)`,
        url: `${ui}/lineage`,
        ready: READY.graph,
        arg: "Lineage graph",
        waitedFor: '[aria-label="Lineage graph"]:not([data-laid-out="false"]) .react-flow__node',
        freeze: true,
      },
    ];
    const results = new Map(cases.map((c) => [c.name, []]));
    for (let i = 0; i < RUNS; i++) {
      for (const c of cases) {
        const r = await measure(page, c.url, c.ready, c.arg, c.tab, c.waitedFor);
        if (r) results.get(c.name).push(r);
        await shot(i, c.name);
      }
    }

    const verdict = (ok) => (ok ? "ok" : "MISSED");
    log(`\nui-at-size (${RUNS} runs each, ms from navigation start, headless chromium 1440×900):`);
    for (const c of cases) {
      const rs = results.get(c.name);
      if (rs.length === 0) {
        log(`  ${c.title}: NOT MEASURED (the view never showed ${c.waitedFor})`);
        continue;
      }
      const t = stats(rs.map((r) => r.ms));
      const partial = rs.length < RUNS ? ` (${rs.length}/${RUNS} runs)` : "";
      const goal = c.target ? `  target ≤ ${c.target} ms: ${verdict(t.median <= c.target)}` : "";
      log(`  ${c.title}: ${fmt(t)}${partial}${goal}`);
      if (c.freeze) {
        const l = stats(rs.map((r) => r.longest));
        log(
          `    longest main-thread task meanwhile: ${fmt(l)}  no freeze (< ${FREEZE_MS} ms): ${verdict(l.max < FREEZE_MS)}`,
        );
      }
    }
    log(
      `  initial JS (entry + modulepreloads, ${js.files.length} files): ${(js.gzip / 1024).toFixed(1)} kB gzipped (${(js.raw / 1024).toFixed(1)} kB raw)  target ≤ ${TARGET_JS_KB} kB: ${verdict(js.gzip / 1024 <= TARGET_JS_KB)}`,
    );
    for (const f of js.files) log(`    ${f.ref}: ${(f.gzip / 1024).toFixed(1)} kB gz`);
    log(`\nreproduce: npm run build && npm run build -w @sluice/web && node bench/ui-at-size.mjs --runs ${RUNS}`);
  } finally {
    await browser?.close().catch(() => undefined);
    if (server) {
      server.child.kill("SIGTERM");
      await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once("exit", r)));
    }
    // an existing server keeps the seeded pipelines, which read the CSV in `dir`
    if (!opts.api) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`ui-at-size: ${e.stack ?? e}`);
  process.exit(1);
});
