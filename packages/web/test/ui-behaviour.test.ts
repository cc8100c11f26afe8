import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { APIRequestContext, Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailable, launchBrowser, step, watchPageErrors } from "../../../test-support/browser.js";
import { spawnServe, type ServeProcess } from "../../../test-support/serve-process.js";

/**
 * What the UI promises beyond the main story: shareable URLs that reload, times in the browser's zone with UTC on
 * hover, the API's own error messages, a log tail that does not steal the scroll position, the system's dark theme,
 * and keyboard access.
 */
const ADMIN = { username: "admin", password: "admin password 1" };
const ZONE = "America/New_York";

describe.runIf(browserAvailable())("web UI behaviour in a real browser", { timeout: 120_000 }, () => {
  let dir: string;
  let server: ServeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let request: APIRequestContext;
  let pipelineId = "";
  let runId = "";

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await request.fetch(`/api${path}`, { method, data: body, headers: { origin: server.url } });
    return { status: res.status(), body: (res.status() === 204 ? undefined : await res.json()) as never };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-ui-b-"));
    const files = join(dir, "files");
    mkdirSync(files);
    writeFileSync(join(files, "in.csv"), "id,amount\n1,10\n2,20\n");
    server = await spawnServe(["--db", join(dir, "sluice.db"), "--file-roots", files], {
      cwd: dir,
      env: { SVC_JWT_SECRET: "8".repeat(64) },
    });
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL: server.url, timezoneId: ZONE, locale: "en-US" });
    request = context.request;
    await api("POST", "/auth/users", ADMIN);
    expect((await api("POST", "/auth/login", ADMIN)).status).toBe(200);
    const created = await api("POST", "/pipelines", {
      name: "csv-copy",
      nodes: [
        { id: "read", type: "source_file", config: { path: "in.csv", format: "csv" } },
        { id: "write", type: "sink_file", config: { path: "out.jsonl" } },
      ],
      edges: [{ from: "read", to: "write" }],
    });
    pipelineId = (created.body as { id: string }).id;
    runId = ((await api("POST", `/pipelines/${pipelineId}/run`, { params: {} })).body as { id: string }).id;
    for (let i = 0; i < 200; i++) {
      const status = ((await api("GET", `/runs/${runId}`)).body as { status: string }).status;
      if (status === "success") break;
      if (status !== "pending" && status !== "running") throw new Error(`seed run ended ${status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("opens every view's URL directly, and a reload keeps the view", async () => {
    const errors = watchPageErrors(page);
    for (const [path, heading] of [
      [`/pipelines/${pipelineId}`, "csv-copy"],
      [`/runs/${runId}`, /csv-copy|run/i],
      ["/pipelines", "Pipelines"],
      ["/connections", "Connections"],
      ["/variables", "Variables"],
      ["/dlq", /dead letters/i],
      ["/lineage", "Lineage"],
      ["/users", "Users"],
      ["/", "Dashboard"],
    ] as const) {
      await step(page, `deep-link-${path}`, async () => {
        await page.goto(path);
        await page.getByRole("heading", { name: heading }).first().waitFor();
        await page.reload();
        await page.getByRole("heading", { name: heading }).first().waitFor();
        expect(new URL(page.url()).pathname).toBe(path);
      });
    }
    expect(errors).toEqual([]);
  });

  it("shows times in the browser's time zone, with the UTC instant on hover", async () => {
    const run = (await api("GET", `/runs/${runId}`)).body as { started_at: string };
    await step(page, "time-zone", async () => {
      await page.goto(`/runs/${runId}`);
      const utc = new Date(run.started_at)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d+Z$/, " UTC");
      const time = page.locator(`time[title="${utc}"]`).first();
      await time.waitFor();
      const hour = new Intl.DateTimeFormat("en-US", { timeZone: ZONE, hour: "2-digit", hour12: true })
        .format(new Date(run.started_at))
        .replace(/\s?[AP]M/, "");
      expect(await time.textContent()).toContain(`${hour}:`);
      const shown = Date.parse((await time.getAttribute("datetime"))!);
      expect(Math.abs(shown - Date.parse(run.started_at))).toBeLessThan(1000);
    });
  });

  it("shows the API's own message when an action fails", async () => {
    const cyclic = {
      name: "cyclic",
      nodes: [
        { id: "a", type: "transform", config: { rules: [] } },
        { id: "b", type: "transform", config: { rules: [] } },
      ],
      edges: [
        { from: "a", to: "b" },
        { from: "b", to: "a" },
      ],
    };
    const answer = await api("POST", "/pipelines/import", cyclic);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    const message = (answer.body as { error: string }).error;
    await step(page, "api-error", async () => {
      await page.goto("/pipelines");
      await page.getByRole("button", { name: "Import" }).first().click();
      const dialog = page.getByRole("dialog");
      await dialog.locator("textarea").fill(JSON.stringify(cyclic));
      await dialog.getByRole("button", { name: /import/i }).click();
      await dialog.getByRole("alert").first().waitFor();
      expect(await dialog.getByRole("alert").first().textContent()).toContain(message);
    });
  });

  it("keeps the log where the reader scrolled to while new lines arrive", async () => {
    const created = await api("POST", "/pipelines", {
      name: "chatty",
      nodes: [
        {
          id: "talk",
          type: "code",
          config: {
            // 1,000 lines (a node's console cap) over about 40 s: on a busy machine the page may take a while to
            // load, and the reader still has time to scroll up while lines keep coming; cancelled when seen
            code: "for (let i = 0; i < 1000; i++) { console.log('line ' + i); if (i % 10 === 9) await new Promise((r) => setTimeout(r, 400)); } return [];",
          },
        },
      ],
      edges: [],
    });
    const id = (created.body as { id: string }).id;
    const run = ((await api("POST", `/pipelines/${id}/run`, { params: {} })).body as { id: string }).id;
    await step(page, "log-scroll", async () => {
      await page.goto(`/runs/${run}`);
      const log = page.getByRole("log", { name: "Run log" });
      const text = async () => (await log.textContent()) ?? "";
      await expect.poll(text, { timeout: 20_000 }).toMatch(/line \d+/);
      // enough lines that there is somewhere to scroll up to
      await expect
        .poll(() => log.evaluate((el) => el.scrollHeight - el.clientHeight), { timeout: 20_000 })
        .toBeGreaterThan(300);
      // the reader scrolls up to the start and reads (the list is virtualized: the top is drawn again)
      await log.evaluate((el) => (el.scrollTop = 0));
      const firstLine = log.getByText("line 0", { exact: true });
      await firstLine.waitFor({ timeout: 5_000 });
      const before = await log.evaluate((el) => el.scrollHeight);
      // lines keep coming, and the view stays where the reader is
      await expect.poll(() => log.evaluate((el) => el.scrollHeight), { timeout: 20_000 }).toBeGreaterThan(before);
      expect(await log.evaluate((el) => el.scrollTop)).toBe(0);
      expect(await firstLine.isVisible()).toBe(true);
      // back at the bottom, it follows again
      await log.evaluate((el) => (el.scrollTop = el.scrollHeight));
      const bottom = await log.evaluate((el) => el.scrollHeight);
      // ten lines and more arrive below (a view left behind would be more than 40 px from the end)…
      await expect.poll(() => log.evaluate((el) => el.scrollHeight), { timeout: 20_000 }).toBeGreaterThan(bottom + 200);
      // …and the view follows them (lines may still be arriving: it catches up with each)
      await expect
        .poll(() => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight), { timeout: 10_000 })
        .toBeLessThan(40);
    });
    await api("POST", `/runs/${run}/cancel`, {});
  });

  it("follows the system's dark theme", async () => {
    const dark = await browser.newContext({ baseURL: server.url, colorScheme: "dark" });
    try {
      await dark.request.fetch("/api/auth/login", { method: "POST", data: ADMIN, headers: { origin: server.url } });
      const p = await dark.newPage();
      await p.goto("/pipelines");
      await p.getByRole("heading", { name: "Pipelines" }).waitFor();
      const luminance = async (selector: string) =>
        p.locator(selector).evaluate((el) => {
          const [r, g, b] = getComputedStyle(el).backgroundColor.match(/\d+/g)!.map(Number) as [number, number, number];
          return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
        });
      expect(await luminance("html")).toBeLessThan(0.2);
      const lightPage = await context.newPage();
      await lightPage.goto("/pipelines");
      await lightPage.getByRole("heading", { name: "Pipelines" }).waitFor();
      const light = await lightPage
        .locator("html")
        .evaluate((el) => getComputedStyle(el).backgroundColor.match(/\d+/g)!.map(Number)[0]!);
      expect(light).toBeGreaterThan(200);
      await lightPage.close();
    } finally {
      await dark.close();
    }
  });

  it("is usable from the keyboard: skip link first, then the navigation", async () => {
    await step(page, "keyboard", async () => {
      await page.goto("/");
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Dashboard");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await page.waitForURL("**/pipelines");
      await page.getByRole("heading", { name: "Pipelines" }).waitFor();
    });
  });
});
