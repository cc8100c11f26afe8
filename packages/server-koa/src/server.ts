import http from "node:http";
import type { AddressInfo } from "node:net";
import { isSluiceError, type Sluice } from "@sluice/core";
import type Koa from "koa";
import { createApp, type AppOptions } from "./app.js";
import { authorizeUpgrade } from "./auth/authorize-upgrade.js";
import { credentialedOrigins } from "./middleware/security.js";
import { attachEventStream, type EventStreamOptions } from "./ws.js";

export interface ServeOptions extends AppOptions {
  readonly host?: string;
  readonly port?: number;
  readonly events?: EventStreamOptions;
  /** How often the open-mode warning repeats while no user exists (default one hour). */
  readonly openModeWarningMs?: number;
}

export interface RunningServer {
  readonly server: http.Server;
  /** The Koa app behind the server (e.g. for `registeredRoutes`). */
  readonly app: Koa;
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the remaining sockets. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the HTTP server for a Sluice instance (its background work is started by the caller). */
export async function startServer(sluice: Sluice, options: ServeOptions = {}): Promise<RunningServer> {
  const app = createApp(sluice, options);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  const stream = attachEventStream(server, sluice, {
    authorize: async (req) => {
      try {
        await authorizeUpgrade(sluice, req, { proxy: options.proxy ?? false, trustedOrigins: credentialedOrigins(options.corsOrigins) });
        return { ok: true };
      } catch (e) {
        if (isSluiceError(e)) return { ok: false, status: e.status, message: e.message };
        throw e;
      }
    },
    terminalEvent: (runId) => sluice.runs.terminalEvent(runId),
    ...options.events,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8080, options.host ?? "0.0.0.0", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = !options.host || options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host;
  const stopOpenModeWarning = warnWhileOpen(sluice, boundUrl(options.host ?? "0.0.0.0", port), options.openModeWarningMs);
  let closing: Promise<void> | null = null;
  return {
    server,
    app,
    port,
    url: `http://${shownHost}:${port}`,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        stopOpenModeWarning();
        void stream.close();
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

const OPEN_MODE_WARNING_MS = 60 * 60 * 1000;

/** `http://host:port` as bound (an IPv6 address in brackets), so the warning names who can reach the server. */
function boundUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * Open mode (no user, no API key) makes everyone who reaches the address an administrator: say so at start and
 * every hour until a user exists. Returns the function that stops the timer (it never keeps the process alive).
 */
function warnWhileOpen(sluice: Sluice, address: string, everyMs = OPEN_MODE_WARNING_MS): () => void {
  const warn = async () => {
    if (!(await sluice.auth.isOpen())) return;
    sluice.options.logger.warn(
      `open mode: no users exist, anyone who can reach ${address} is admin — create the first user ` +
        "(POST /api/auth/users), or start the server with --api-key",
      { address },
    );
  };
  const report = () => void warn().catch(() => undefined);
  report();
  const timer = setInterval(report, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
