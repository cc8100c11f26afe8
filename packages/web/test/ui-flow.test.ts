import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, launchBrowser, step, watchPageErrors } from "../../../test-support/browser.js";
import { spawnServe, type ServeProcess } from "../../../test-support/serve-process.js";

/**
 * The UI as a new user meets it: a real `sluice serve` with a throw-away database, Debian's chromium, and the story of
 * issue 16 — setup, login, import, trigger and watch live, read a failed run's log, fix and resume, roll back a
 * version, and a viewer who sees no edit controls.
 */
const ADMIN = { username: "ada", password: "correct horse battery" };
const VIEWER = { username: "val", password: "viewer password 1" };
const LIVE_TIMEOUT = 30_000;

const ordersPipeline = {
  name: "orders-daily",
  description: "Orders CSV to a cleaned JSONL file",
  nodes: [
    { id: "orders", type: "source_file", config: { path: "orders.csv", format: "csv" } },
    { id: "clean", type: "transform", config: { rules: [{ type: "deduplicate" }] } },
    { id: "out", type: "sink_file", config: { path: "out/orders.jsonl" } },
  ],
  edges: [
    { from: "orders", to: "clean" },
    { from: "clean", to: "out" },
  ],
};

const refundsPipeline = {
  name: "refunds-daily",
  description: "Reads refunds.csv, which has not arrived yet",
  nodes: [
    { id: "refunds", type: "source_file", config: { path: "incoming/refunds.csv", format: "csv" } },
    { id: "out", type: "sink_file", config: { path: "out/refunds.jsonl" } },
  ],
  edges: [{ from: "refunds", to: "out" }],
};

describe.runIf(browserAvailable())("the web UI in a real browser", { timeout: 120_000 }, () => {
  let dir: string;
  let files: string;
  let server: ServeProcess;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-ui-"));
    files = join(dir, "files");
    mkdirSync(files);
    writeFileSync(join(files, "orders.csv"), "id,amount\n1,10\n2,20\n2,20\n3,30\n");
    server = await spawnServe(["--db", join(dir, "sluice.db"), "--file-roots", files], {
      cwd: dir,
      env: { SVC_JWT_SECRET: "9".repeat(64) },
    });
    browser = await launchBrowser();
    admin = await browser.newContext({ baseURL: server.url, timezoneId: "Europe/Berlin" });
    page = await admin.newPage();
    errors = watchPageErrors(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The API, with the admin's session cookie (what the page itself holds). */
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await admin.request.fetch(`/api${path}`, {
      method,
      data: body,
      headers: { origin: server.url },
    });
    if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${await res.text()}`);
    return res.status() === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
  };

  it("sets up the first user, signs out and back in", async () => {
    await step(page, "setup", async () => {
      await page.goto("/");
      await page.waitForURL("**/setup");
      await page.getByLabel("Username").fill(ADMIN.username);
      await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
      await page.getByLabel(/confirm/i).fill(ADMIN.password);
      await page.getByRole("button", { name: "Create account" }).click();
      await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe("/");
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    });
    await step(page, "logout-login", async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL("**/login**");
      await page.getByLabel("Username").fill(ADMIN.username);
      await page.getByLabel("Password").fill("wrong password!");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").waitFor();
      expect(await page.getByRole("alert").textContent()).toMatch(/invalid|incorrect|credentials/i);
      await page.getByLabel("Password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    });
  });

  let ordersId = "";
  it("imports a pipeline from JSON, triggers it and watches it succeed live", async () => {
    await step(page, "import", async () => {
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Pipelines" }).click();
      await page.getByRole("heading", { name: "Pipelines" }).waitFor();
      await page.getByRole("button", { name: "Import" }).first().click();
      const dialog = page.getByRole("dialog");
      await dialog.locator("textarea").fill(JSON.stringify(ordersPipeline, null, 2));
      await dialog.getByRole("button", { name: /import/i }).click();
      await page.waitForURL(/\/pipelines\/[^/]+$/);
      ordersId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
      await page.getByRole("heading", { name: "orders-daily" }).waitFor();
    });
    await step(page, "trigger", async () => {
      await page.getByRole("button", { name: "Trigger", exact: true }).click();
      const confirm = page.getByRole("dialog").getByRole("button", { name: /trigger|run/i });
      if (await confirm.isVisible().catch(() => false)) await confirm.click();
      await page.waitForURL(/\/runs\/[^/]+$/);
    });
    await step(page, "run-live", async () => {
      // the page was loaded before the run finished: the success arrives over the WebSocket
      await page.getByText("success", { exact: true }).first().waitFor({ timeout: LIVE_TIMEOUT });
      const rows = page.getByRole("row").filter({ hasText: "out" });
      await rows.first().getByText("success").waitFor({ timeout: LIVE_TIMEOUT });
      await page
        .getByRole("region", { name: "Timeline" })
        .or(page.getByRole("img", { name: "Timeline" }))
        .first()
        .waitFor();
    });
  });

  it("opens a failed run of a second pipeline, reads its log, fixes the cause and resumes", async () => {
    const created = await api("POST", "/pipelines", refundsPipeline);
    const refundsId = String(created!.id);
    const accepted = await api("POST", `/pipelines/${refundsId}/run`, { params: {} });
    const runId = String(accepted!.id ?? accepted!.run_id);
    await step(page, "failed-run", async () => {
      await page.goto(`/pipelines/${encodeURIComponent(refundsId)}`);
      await page.getByRole("heading", { name: "refunds-daily" }).waitFor();
      const link = page.locator(`a[href$="/runs/${runId}"]`).first();
      await link.waitFor({ timeout: LIVE_TIMEOUT });
      await link.click();
      await page.waitForURL(`**/runs/${runId}`);
      await page.getByText("failed", { exact: true }).first().waitFor({ timeout: LIVE_TIMEOUT });
    });
    await step(page, "read-log", async () => {
      const log = page.getByLabel("Run log");
      await expect.poll(async () => (await log.textContent()) ?? "", { timeout: LIVE_TIMEOUT }).toMatch(/refunds/);
    });
    await step(page, "resume", async () => {
      mkdirSync(join(files, "incoming"), { recursive: true });
      writeFileSync(join(files, "incoming", "refunds.csv"), "id,amount\n1,5\n");
      await page.getByRole("button", { name: "Resume" }).click();
      const confirm = page.getByRole("dialog").getByRole("button", { name: /resume/i });
      if (await confirm.isVisible().catch(() => false)) await confirm.click();
      await page.getByText("success", { exact: true }).first().waitFor({ timeout: LIVE_TIMEOUT });
    });
  });

  it("rolls back to an earlier version", async () => {
    await api("PUT", `/pipelines/${ordersId}`, { ...ordersPipeline, description: "changed by mistake" });
    await step(page, "rollback", async () => {
      await page.goto(`/pipelines/${encodeURIComponent(ordersId)}`);
      await page.getByText("changed by mistake").first().waitFor();
      await page.getByRole("tab", { name: /versions/i }).click();
      await page
        .getByRole("button", { name: /rollback/i })
        .first()
        .click();
      const confirm = page.getByRole("dialog").getByRole("button", { name: /rollback|roll back|confirm/i });
      if (await confirm.isVisible().catch(() => false)) await confirm.click();
      await expect
        .poll(async () => (await api("GET", `/pipelines/${ordersId}`))!.description, { timeout: 15_000 })
        .toBe(ordersPipeline.description);
      await page.getByText(ordersPipeline.description).first().waitFor();
    });
  });

  it("shows a viewer no edit controls", async () => {
    await api("POST", "/auth/users", { ...VIEWER, role: "viewer" });
    const context = await browser.newContext({ baseURL: server.url });
    const viewer = await context.newPage();
    const viewerErrors = watchPageErrors(viewer);
    try {
      await step(viewer, "viewer-login", async () => {
        await viewer.goto("/pipelines");
        await viewer.waitForURL("**/login**");
        await viewer.getByLabel("Username").fill(VIEWER.username);
        await viewer.getByLabel("Password").fill(VIEWER.password);
        await viewer.getByRole("button", { name: "Sign in" }).click();
        await viewer.getByRole("heading", { name: "Pipelines" }).waitFor();
      });
      const editing =
        /^(trigger|import|rollback|delete|resume|cancel|create connection|create user|save|disable|enable)$/i;
      for (const path of ["/pipelines", `/pipelines/${ordersId}`, "/connections", "/variables", "/dlq"]) {
        await step(viewer, `viewer-${path}`, async () => {
          await viewer.goto(path);
          await viewer.getByRole("heading").first().waitFor();
          await viewer.waitForLoadState("networkidle");
          const buttons = await viewer.getByRole("button").allTextContents();
          expect(
            buttons.map((b) => b.trim()).filter((b) => editing.test(b)),
            path,
          ).toEqual([]);
        });
      }
      // before signing in the session check is answered 401; after it, a viewer's pages ask nothing they may not
      expect(viewerErrors.filter((e) => e !== "401 GET /api/auth/me")).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("ran without script errors or CSP violations", () => {
    const expected = ["401 GET /api/auth/me", "401 POST /api/auth/login"]; // signed out; the wrong password
    expect(errors.filter((e) => !expected.includes(e))).toEqual([]);
  });
});
