import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Context, Middleware, Next } from "koa";
import compress from "koa-compress";
import compose from "koa-compose";
import send from "koa-send";

/** Where the built UI is, or false to serve none. `true` finds the `@sluice/web` package. */
export type UiOption = boolean | { readonly root: string };

/**
 * The UI's Content-Security-Policy: scripts, workers, data and the event stream only from this origin — no inline or
 * evaluated script, nothing framed, no plugins. Inline `style` attributes are allowed: the graph library positions
 * nodes with them.
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Hashed build output never changes under its name; everything else is revalidated on every load. */
const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

/** The directory of the built UI (`@sluice/web`'s dist), or null when the package or its build is missing. */
export function findWebRoot(): string | null {
  try {
    const root = join(dirname(createRequire(import.meta.url).resolve("@sluice/web/package.json")), "dist");
    return existsSync(join(root, "index.html")) ? root : null;
  } catch {
    return null;
  }
}

/** The UI directory an `AppOptions.ui` asks for: null for none; an error when asked for explicitly but not built. */
export function resolveUiRoot(option: UiOption | undefined): string | null {
  if (option === undefined || option === false) return null;
  const root = option === true ? findWebRoot() : option.root;
  if (root === null) throw new Error("the web UI is not built (npm run build -w @sluice/web)");
  return root;
}

/**
 * Serves the web UI from `root` at `/`: files as they are (`/assets/*` cached for a year, the rest revalidated), and
 * every other GET that is not the API's (`apiPrefix`, `/ws`, root operations) answered with `index.html`, so that each
 * view's URL can be opened directly. Requests the API answers never reach here.
 */
export function webUi(root: string, apiPrefix: string, rootPaths: readonly string[]): Middleware {
  const indexPath = join(root, "index.html");
  if (!existsSync(indexPath)) throw new Error(`the web UI is not built: ${indexPath} is missing`);
  // the shell is read again when the build changes under a running server (else its old asset names 404)
  let shell = { mtimeMs: -1, html: "" };
  const pages = new Map<string, string>();
  const currentShell = (): string => {
    const { mtimeMs } = statSync(indexPath);
    if (mtimeMs !== shell.mtimeMs) {
      shell = { mtimeMs, html: readFileSync(indexPath, "utf8") };
      pages.clear();
    }
    return shell.html;
  };
  const reserved = [apiPrefix, "/ws", ...rootPaths];
  const isReserved = (path: string) => reserved.some((p) => path === p || path.startsWith(`${p}/`));

  const serve = async (ctx: Context, next: Next) => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || isReserved(ctx.path)) return next();
    const asset = ctx.path.startsWith("/assets/");
    if (ctx.path !== "/" && ctx.path !== "/index.html") {
      const setHeaders = (res: { setHeader(name: string, value: string): void }) => {
        res.setHeader("Cache-Control", asset ? IMMUTABLE : REVALIDATE);
      };
      try {
        const served = await send(ctx, ctx.path, { root, index: false, hidden: false, setHeaders });
        if (served) return applyUiHeaders(ctx);
      } catch (e) {
        const status = (e as { status?: number }).status;
        if (status !== 404 && status !== 400 && status !== 403) throw e;
      }
      // a missing build file is a 404, not the app: a browser asking for a script must not get HTML
      if (asset || /\.(?:js|css|map|svg|png|ico|json|txt|woff2?)$/i.test(ctx.path)) return next();
    }
    // the app itself, for every view's URL; below a koa-mount prefix its links point there
    const base = mountPathOf(ctx);
    const html = currentShell();
    let page = pages.get(base);
    if (page === undefined) {
      page = pageFor(html, base);
      if (pages.size < 16) pages.set(base, page);
    }
    ctx.type = "text/html; charset=utf-8";
    ctx.set("Cache-Control", REVALIDATE);
    ctx.body = page;
    applyUiHeaders(ctx);
  };
  return compose([compress({ threshold: 1024 }) as Middleware, serve]) as Middleware;
}

/** The prefix koa-mount served this app under (`/etl`), or `` at the root. */
function mountPathOf(ctx: Context): string {
  const mountPath = (ctx as { mountPath?: unknown }).mountPath;
  return typeof mountPath === "string" && /^(\/[A-Za-z0-9._~-]+)+$/.test(mountPath) ? mountPath : "";
}

/**
 * index.html with its build-relative links (`./assets/…`, `./favicon.svg`) made absolute below `base`, and `base`
 * in a meta tag the app reads for its router and API calls.
 */
function pageFor(indexHtml: string, base: string): string {
  return indexHtml
    .replace(/(\s(?:src|href)=")\.\//g, `$1${base}/`)
    .replace("<head>", `<head>\n    <meta name="sluice-base" content="${base}" />`);
}

function applyUiHeaders(ctx: Context): void {
  ctx.set("Content-Security-Policy", UI_CSP);
  // the API's headers forbid every embedding; the UI needs none of the powerful features either
  ctx.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
}
