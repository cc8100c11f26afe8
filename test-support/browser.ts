/**
 * A real browser for UI tests: Playwright (playwright-core, no browser download) driving Debian's chromium.
 * `.ci/run` installs chromium when it is missing; with SLUICE_REQUIRE_SERVICES=1 a missing browser fails the run.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = process.env.SLUICE_CHROMIUM ?? "/usr/bin/chromium";

/** Where screenshots of failed steps go (ignored by git). */
export const SCREENSHOT_DIR = fileURLToPath(new URL("../test-results/ui/", import.meta.url));

/**
 * Whether UI tests can run here. Without chromium they are skipped with a warning — unless services are required
 * (CI), where a missing browser is an error rather than a silent skip.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.SLUICE_REQUIRE_SERVICES === "1") {
    throw new Error(`${CHROMIUM} is missing and SLUICE_REQUIRE_SERVICES=1: apt-get install -y chromium`);
  }
  console.warn(`UI tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  return false;
}

/** Chromium headless, with everything that would reach beyond this machine turned off. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/**
 * Runs one step of a UI test; when it fails, a screenshot of the page is written to test-results/ui/<name>.png and
 * the error says where, so a red CI shows what the browser showed.
 */
export async function step<T>(page: Page, name: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, "-")}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    const message = e instanceof Error ? e.message : String(e);
    throw new Error(`UI step "${name}" failed (screenshot: ${file}): ${message}`, { cause: e });
  }
}

/**
 * Collects what the page reports as broken: uncaught errors, console errors (CSP violations show up there) and
 * answers of 400 or more, as `STATUS METHOD PATH`.
 */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // a failed request is reported with its URL below
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  return errors;
}
