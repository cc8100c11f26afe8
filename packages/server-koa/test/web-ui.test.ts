import { mkdtempSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Koa from "koa";
import mount from "koa-mount";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSluice, silentLogger, type Sluice } from "@sluice/core";
import { startTestServer, type TestServer } from "../../../test-support/http.js";
import { createApp, findWebRoot, UI_CSP } from "../src/index.js";

const SECRET = "do-not-serve-me-7f3a";

/** A built UI as Vite writes it (relative links), beside a file that must never be reachable through it. */
function fakeBuild(): { dir: string; root: string } {
  const dir = mkdtempSync(join(tmpdir(), "sluice-web-ui-"));
  const root = join(dir, "dist");
  mkdirSync(join(root, "assets"), { recursive: true });
  writeFileSync(
    join(root, "index.html"),
    '<!doctype html><html><head><script type="module" src="./assets/app-abc123.js"></script>' +
      '<link rel="icon" href="./favicon.svg" /></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(root, "assets", "app-abc123.js"), `console.log(${JSON.stringify("x".repeat(4000))});`);
  writeFileSync(join(root, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(root, ".env"), SECRET);
  writeFileSync(join(dir, "secret.txt"), SECRET);
  return { dir, root };
}

describe("the web UI served by sluice serve", () => {
  let server: TestServer;
  let build: { dir: string; root: string };
  beforeAll(async () => {
    build = fakeBuild();
    server = await startTestServer("sqlite", {}, { ui: { root: build.root } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(build.dir, { recursive: true, force: true });
  });
  const get = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, init);

  it("answers / with the app: only its own scripts may run, and it is revalidated on every load", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toBe(UI_CSP);
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src"))!;
    expect(scriptSrc.trim()).toBe("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain('src="/assets/app-abc123.js"');
    expect(html).toContain('<meta name="sluice-base" content="" />');
  });

  it("answers every view's URL with the app, so links can be shared and reloaded", async () => {
    for (const path of ["/pipelines", "/pipelines/p_123", "/runs/r_1", "/login", "/setup", "/no/such/view"]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain('<div id="root">');
    }
  });

  it("serves hashed assets for a year, compressed", async () => {
    const res = await get("/assets/app-abc123.js", { headers: { "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(await res.text()).toContain("console.log");
  });

  it("answers a missing script with a JSON 404, never with the app's HTML", async () => {
    for (const path of ["/assets/missing.js", "/assets/missing.css", "/nothing.js"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
    }
  });

  it("leaves the API and the root operations to the API", async () => {
    const unknown = await get("/api/no-such-route");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/not found/);
    const health = await get("/health");
    expect(health.status).toBe(200);
    expect(health.headers.get("content-type")).toMatch(/^application\/json/);
    const setup = await get("/api/auth/setup");
    expect(await setup.json()).toEqual({ needs_setup: true });
    const post = await get("/pipelines", { method: "POST", body: "{}" });
    expect(post.status).toBe(404);
    expect(post.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("serves a rebuilt UI without a restart (the old shell would name assets that are gone)", async () => {
    const index = join(build.root, "index.html");
    const before = readFileSync(index, "utf8");
    try {
      writeFileSync(join(build.root, "assets", "app-new456.js"), "console.log('new build');");
      writeFileSync(index, before.replace("app-abc123.js", "app-new456.js"));
      utimesSync(index, new Date(), new Date(Date.now() + 5000));
      const html = await (await get("/pipelines")).text();
      expect(html).toContain('src="/assets/app-new456.js"');
      expect(html).not.toContain("app-abc123.js");
    } finally {
      writeFileSync(index, before);
      utimesSync(index, new Date(), new Date(Date.now() + 10_000));
    }
  });

  it("serves nothing outside the build and no dotfiles", async () => {
    const attempts = [
      "/../secret.txt",
      "/..%2fsecret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/%2e%2e/secret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/.env",
      "/assets/../.env",
      "/%2eenv",
      "//etc/passwd",
      "/assets/%00.js",
    ];
    for (const path of attempts) {
      const res = await fetch(`${server.baseUrl}${path}`, { redirect: "manual" });
      const body = await res.text();
      expect(body, path).not.toContain(SECRET);
      expect(body, path).not.toContain("root:x:0");
    }
  });
});

describe("the web UI for embedders", () => {
  let sluice: Sluice;
  let build: { dir: string; root: string };
  beforeAll(async () => {
    build = fakeBuild();
    sluice = await createSluice({ database: ":memory:", logger: silentLogger, jwtSecret: "5".repeat(64) });
  });
  afterAll(async () => {
    await sluice?.close();
    rmSync(build.dir, { recursive: true, force: true });
  });

  async function listen(app: Koa): Promise<{ base: string; server: http.Server }> {
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  it("is off unless asked for: createApp alone answers / with the API's 404", async () => {
    const { base, server } = await listen(createApp(sluice));
    try {
      const res = await fetch(`${base}/`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    } finally {
      server.close();
    }
  });

  it("points its links below the mount path when mounted under a prefix", async () => {
    const host = new Koa();
    host.use(mount("/etl", createApp(sluice, { ui: { root: build.root } })));
    const { base, server } = await listen(host);
    try {
      const html = await (await fetch(`${base}/etl/pipelines/p_1`)).text();
      expect(html).toContain('src="/etl/assets/app-abc123.js"');
      expect(html).toContain('<meta name="sluice-base" content="/etl" />');
      const asset = await fetch(`${base}/etl/assets/app-abc123.js`);
      expect(asset.status).toBe(200);
      const api = await fetch(`${base}/etl/api/auth/setup`);
      expect(await api.json()).toEqual({ needs_setup: true });
    } finally {
      server.close();
    }
  });

  it("finds the built @sluice/web of this install (npm install builds it)", () => {
    const root = findWebRoot();
    expect(root).not.toBeNull();
    expect(() => createApp(sluice, { ui: true })).not.toThrow();
  });
});
