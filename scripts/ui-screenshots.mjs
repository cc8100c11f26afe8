// Screenshots of every web UI view for docs/ui.md and the README, taken in a real browser against a real server.
// Spawns `sluice serve` on 127.0.0.1 with a fresh database, seeds a small demo through the HTTP API, drives Debian's
// chromium with playwright-core and writes docs/images/ui-<view>.png. Needs `npm run build` (server and UI) first.
//
//   node scripts/ui-screenshots.mjs [--out DIR] [--chromium PATH] [--keep]   (--keep: leave the server running)
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    out: { type: "string", default: path.join(root, "docs/images") },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
    keep: { type: "boolean", default: false },
  },
});
const ADMIN = { username: "ada", password: "demo-password-1234" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- server
const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = net.createServer().once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

async function startServer(dir) {
  const port = await freePort();
  const args = ["serve", "--host", "127.0.0.1", "--port", String(port)];
  args.push("--db", path.join(dir, "sluice.db"), "--file-roots", path.join(dir, "files"));
  const child = spawn(process.execPath, ["packages/server-koa/bin/sluice.js", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" within 30 s:\n${output}`)), 30_000);
    const onData = (d) => {
      output += d;
      if (/listening on/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the server exited with code ${code}:\n${output}`)));
  });
  return { base: `http://127.0.0.1:${port}`, child };
}

// ---------------------------------------------------------------- seeding through the API
let base = "";
let token = "";
async function api(method, p, body) {
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

/** Triggers a run and waits until it is finished; returns the run. */
async function run(pipeline, params) {
  const { id } = await api("POST", `/pipelines/${pipeline.id}/run`, params ? { params } : {});
  return waitRun(id);
}
async function waitRun(id) {
  for (let i = 0; i < 300; i++) {
    const r = await api("GET", `/runs/${id}`);
    if (!["pending", "queued", "running"].includes(r.status)) return r;
    await sleep(100);
  }
  throw new Error(`run ${id} did not finish in 30 s`);
}

const src = (id, name, file) => ({ id, name, type: "source_file", config: { path: file, cast: true } });
const sink = (id, name, file) => ({ id, name, type: "sink_file", config: { path: file } });
const chain = (...ids) => ids.slice(1).map((to, i) => ({ from: ids[i], to }));

function writeFiles(files) {
  const regions = ["eu", "us", "apac"];
  const orders = ["order_id,customer_id,region,amount,email,ordered_at"];
  for (let i = 1; i <= 120; i++) {
    const email = i % 17 === 0 ? "" : i % 23 === 0 ? "not-an-email" : `buyer${i}@example.com`;
    const day = String(1 + (i % 28)).padStart(2, "0");
    orders.push(`${1000 + i},${1 + (i % 30)},${regions[i % 3]},${((i * 37) % 400) + 9.5},${email},2025-11-${day}`);
  }
  fs.writeFileSync(path.join(files, "orders.csv"), orders.join("\n"));
  const customers = ["customer_id,name,segment,signup_year"];
  for (let i = 1; i <= 30; i++) customers.push(`${i},Customer ${i},${["smb", "mid", "ent"][i % 3]},${2018 + (i % 7)}`);
  fs.writeFileSync(path.join(files, "customers.csv"), customers.join("\n"));
  const events = Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({ event: ["view", "click", "buy"][i % 3], user: `u${i % 40}`, ms: (i * 13) % 900 }),
  );
  fs.writeFileSync(path.join(files, "events.jsonl"), events.join("\n"));
  const db = new Database(path.join(files, "warehouse.db"));
  db.exec("create table products (sku text primary key, title text, price real, stock integer)");
  const insert = db.prepare("insert into products values (?, ?, ?, ?)");
  for (let i = 1; i <= 40; i++) insert.run(`SKU-${100 + i}`, `Product ${i}`, 4.99 + i, (i * 7) % 50);
  db.close();
}

async function seed(files) {
  const setup = await api("GET", "/auth/setup");
  if (setup?.needs_setup) await api("POST", "/auth/users", { ...ADMIN, role: "admin" });
  token = (await api("POST", "/auth/login", ADMIN)).token;
  await api("POST", "/auth/users", { username: "sam", password: "demo-password-1234", role: "editor" });
  await api("POST", "/auth/users", { username: "lin", password: "demo-password-1234", role: "viewer" });

  await api("POST", "/connections", {
    conn_id: "warehouse",
    type: "sqlite",
    host: path.join(files, "warehouse.db"),
  });
  await api("POST", "/connections", {
    conn_id: "analytics-pg",
    type: "postgres",
    host: "127.0.0.1",
    port: 5432,
    schema: "analytics",
    login: "etl",
    password: "not-a-real-password",
  });
  await api("POST", "/variables", { key: "report_currency", value: "EUR", type: "string" });
  await api("POST", "/variables", { key: "min_order_amount", value: "10", type: "string" });
  await api("POST", "/variables", { key: "crm_api_token", value: "sk_live_demo_0123456789", type: "secret" });

  const create = (p) => api("POST", "/pipelines", p);
  const orders = await create({
    name: "orders daily",
    description: "Cleans yesterday's orders, checks e-mails and writes the curated CSV.",
    tags: ["sales", "daily"],
    schedule: "0 6 * * *",
    schedule_timezone: "Europe/Berlin",
    params: { region: "eu" },
    nodes: [
      src("orders", "read orders", "orders.csv"),
      {
        id: "clean",
        name: "clean & enrich",
        type: "transform",
        config: {
          rules: [
            { type: "filter", expression: "amount >= 10" },
            { type: "add_column", name: "gross", expression: "amount * 1.19" },
          ],
        },
      },
      {
        id: "check",
        name: "e-mail quality",
        type: "quality",
        config: {
          on_failure: "dlq",
          checks: [
            { type: "not_null", column: "email" },
            { type: "regex", column: "email", pattern: "^[^@]+@[^@]+$" },
          ],
        },
      },
      sink("out", "write curated", "out/orders_clean.csv"),
    ],
    edges: chain("orders", "clean", "check", "out"),
  });
  for (let i = 0; i < 3; i++) await run(orders);
  // a failed run in the grid: the input is missing for a moment
  fs.renameSync(path.join(files, "orders.csv"), path.join(files, "orders.bak"));
  await run(orders);
  fs.renameSync(path.join(files, "orders.bak"), path.join(files, "orders.csv"));
  // version 2: a dedupe rule and a region param (a diff on the versions tab)
  const v2nodes = structuredClone(orders.nodes);
  v2nodes[1].config.rules.unshift({ type: "deduplicate", columns: ["order_id"] });
  await api("PUT", `/pipelines/${orders.id}`, {
    nodes: v2nodes,
    params: { region: "eu", currency: "EUR" },
    webhook_token: "demo-webhook-token-5f2c9a7e1b",
  });
  for (let i = 0; i < 2; i++) await run(orders);

  const scoring = await create({
    name: "customer scoring",
    description: "Scores customers with a small JavaScript model.",
    tags: ["ml"],
    schedule: "30 * * * *",
    schedule_timezone: "UTC",
    nodes: [
      src("customers", "read customers", "customers.csv"),
      {
        id: "score",
        name: "score (code)",
        type: "code",
        config: {
          timeout: 60,
          code:
            "console.log('scoring', rows.length, 'customers');\n" +
            "return rows.map(r => ({ ...r, score: Math.round((2025 - r.signup_year) * 10 + (r.segment === 'ent' ? 50 : 0)) }));",
        },
      },
      sink("out", "write scores", "out/customer_scores.jsonl"),
    ],
    edges: chain("customers", "score", "out"),
  });
  await run(scoring);
  await run(scoring);

  const revenue = await create({
    name: "revenue by region",
    description: "Joins orders with customers and sums revenue per region and segment.",
    tags: ["sales", "finance"],
    schedule: "15 7 * * 1-5",
    schedule_timezone: "America/New_York",
    depends_on: [orders.id],
    nodes: [
      src("orders", "read orders", "out/orders_clean.csv"),
      src("customers", "read customers", "customers.csv"),
      { id: "joined", name: "orders ⋈ customers", type: "join", config: { how: "left", on: "customer_id" } },
      {
        id: "agg",
        name: "sum by region",
        type: "transform",
        config: {
          rules: [
            {
              type: "aggregate",
              group_by: ["region", "segment"],
              aggregations: [{ column: "amount", function: "sum", as: "revenue" }],
            },
            { type: "sort", columns: "revenue", descending: true },
          ],
        },
      },
      sink("out", "write report", "out/revenue.csv"),
    ],
    edges: [...chain("orders", "joined", "agg", "out"), { from: "customers", to: "joined" }],
  });
  await run(revenue);

  const warehouse = await create({
    name: "warehouse products export",
    description: "Exports the product catalogue from the SQLite warehouse.",
    tags: ["warehouse"],
    schedule: "0 */4 * * *",
    schedule_timezone: "Asia/Tokyo",
    nodes: [
      {
        id: "products",
        name: "query products",
        type: "source_db",
        config: { conn_id: "warehouse", query: "select * from products" },
      },
      {
        id: "low",
        name: "low stock",
        type: "transform",
        config: { rules: [{ type: "filter", expression: "stock < 10" }] },
      },
      sink("out", "write low stock", "out/low_stock.jsonl"),
    ],
    edges: chain("products", "low", "out"),
  });
  await run(warehouse);

  const hygiene = await create({
    name: "email hygiene check",
    description: "Blocks the CRM sync when customer e-mails are missing.",
    tags: ["quality", "crm"],
    schedule: "0 9 * * *",
    schedule_timezone: "Europe/London",
    nodes: [
      src("orders", "read orders", "orders.csv"),
      {
        id: "check",
        name: "e-mails present",
        type: "quality",
        config: { on_failure: "block", checks: [{ type: "not_null", column: "email" }] },
      },
      sink("out", "write crm feed", "out/crm_feed.csv"),
    ],
    edges: chain("orders", "check", "out"),
  });
  await run(hygiene);
  const failed = await run(hygiene);

  const inventory = await create({
    name: "inventory sync",
    description: "Loads the nightly inventory drop.",
    tags: ["warehouse"],
    schedule: "45 2 * * *",
    schedule_timezone: "Europe/Berlin",
    nodes: [
      src("drop", "read inventory drop", "inventory.csv"),
      {
        id: "clean",
        name: "drop empty rows",
        type: "transform",
        config: { rules: [{ type: "filter", expression: "qty > 0" }] },
      },
      sink("out", "write inventory", "out/inventory.csv"),
    ],
    edges: chain("drop", "clean", "out"),
  });
  // fails (the drop is not there yet), then the file arrives and the run is resumed
  const resumed = await run(inventory);
  fs.writeFileSync(path.join(files, "inventory.csv"), "sku,qty\nSKU-101,4\nSKU-102,0\nSKU-103,12\n");
  await api("POST", `/runs/${resumed.id}/resume`);
  await waitRun(resumed.id);

  const events = await create({
    name: "events rollup",
    description: "Counts clickstream events per type (paused).",
    tags: ["product"],
    schedule: "*/15 * * * *",
    enabled: false,
    nodes: [
      src("events", "read events", "events.jsonl"),
      {
        id: "agg",
        name: "count per event",
        type: "transform",
        config: {
          rules: [
            { type: "aggregate", group_by: ["event"], aggregations: [{ column: "ms", function: "avg", as: "avg_ms" }] },
          ],
        },
      },
      sink("out", "write rollup", "out/events_rollup.csv"),
    ],
    edges: chain("events", "agg", "out"),
  });
  await run(events);

  await create({
    name: "partner feed",
    description: "Draft: exports orders of one region for a partner (run by hand).",
    tags: ["sales", "draft"],
    params: { region: "eu" },
    nodes: [
      src("orders", "read orders", "orders.csv"),
      {
        id: "region",
        name: "one region",
        type: "transform",
        config: { rules: [{ type: "filter", expression: "region == params.region" }] },
      },
      sink("out", "write feed", "out/partner_${param.region}.csv"),
    ],
    edges: chain("orders", "region", "out"),
  });

  const ordersRuns = await api("GET", `/pipelines/${orders.id}/runs`);
  return { orders, revenue, failed, resumed, finished: ordersRuns[0] };
}

// ---------------------------------------------------------------- browser
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-ui-shots-"));
  const files = path.join(dir, "files");
  fs.mkdirSync(files, { recursive: true });
  writeFiles(files);
  fs.mkdirSync(opts.out, { recursive: true });
  const server = await startServer(dir);
  base = server.base;
  let browser;
  try {
    console.log(`server ${base}; seeding…`);
    const demo = await seed(files);
    browser = await chromium.launch({ executablePath: opts.chromium, args: CHROMIUM_ARGS });
    const written = [];

    for (const scheme of ["light", "dark"]) {
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
        colorScheme: scheme,
        timezoneId: "Europe/Berlin",
      });
      // traffic stays on 127.0.0.1
      await context.route(
        (url) => url.hostname !== "127.0.0.1",
        (route) => route.abort(),
      );
      const page = await context.newPage();
      const shot = async (name, url, ready) => {
        if (url) await page.goto(`${base}${url}`);
        await page.waitForLoadState("networkidle").catch(() => undefined);
        if (ready) await ready();
        await page.waitForTimeout(600); // charts and graph layout settle
        const file = path.join(opts.out, `ui-${name}.png`);
        await page.screenshot({ path: file });
        written.push(file);
      };

      if (scheme === "dark") {
        await page.goto(`${base}/login`);
        await page.getByLabel("Username").fill(ADMIN.username);
        await page.getByLabel("Password").fill(ADMIN.password);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL((u) => !u.pathname.startsWith("/login"));
        await shot("run-dark", `/runs/${demo.finished.id}`, () =>
          page
            .getByText("rows written")
            .first()
            .waitFor()
            .catch(() => undefined),
        );
        await context.close();
        continue;
      }

      await page.goto(`${base}/login`);
      await page.getByLabel("Username").fill(ADMIN.username);
      await shot("login");
      await page.getByLabel("Password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((u) => !u.pathname.startsWith("/login"));

      await shot("dashboard", "/");
      await shot("pipelines", "/pipelines");
      await shot("pipeline-graph", `/pipelines/${demo.orders.id}`, () =>
        page.locator(".react-flow__node").first().waitFor(),
      );
      await shot("pipeline-grid", `/pipelines/${demo.orders.id}?tab=grid`);
      await shot("pipeline-versions", `/pipelines/${demo.orders.id}?tab=versions`);
      await shot("run", `/runs/${demo.finished.id}`);
      await page.locator("#run-log-title").scrollIntoViewIfNeeded();
      await page.evaluate(() => document.getElementById("run-log-title")?.scrollIntoView({ block: "start" }));
      await shot("run-log");
      await shot("run-failed", `/runs/${demo.failed.id}`);
      await page.goto(`${base}/connections`);
      const warehouseRow = page.getByRole("row").filter({ hasText: "warehouse" });
      await warehouseRow.getByRole("button", { name: /^test/i }).click();
      await page
        .getByText(/connection ok|success|round trip/i)
        .first()
        .waitFor({ timeout: 8000 })
        .catch(() => undefined);
      await shot("connections");
      await shot("variables", "/variables");
      await page.goto(`${base}/dlq?pipeline=${demo.orders.id}`);
      await page
        .locator(".dlq-entry summary")
        .first()
        .click()
        .catch(() => undefined);
      await shot("dlq");
      await shot("lineage", "/lineage", () => page.locator(".react-flow__node").first().waitFor());
      await shot("users", "/users");
      await context.close();
    }
    console.log(`wrote ${written.length} screenshots:\n  ${written.map((f) => path.relative(root, f)).join("\n  ")}`);
    if (opts.keep) {
      console.log(
        `server left running at ${base} (pid ${server.child.pid}); user ${ADMIN.username} / ${ADMIN.password}`,
      );
      return;
    }
  } finally {
    await browser?.close();
    if (!opts.keep) {
      server.child.kill("SIGTERM");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
