import type http from "node:http";
import type { AddressInfo } from "node:net";
import { OPERATIONS, type Sluice } from "@sluice/core";
import type Koa from "koa";
import websockify from "koa-websocket";
import { createApp, type AppOptions } from "./app.js";
import { answerClientError } from "./client-error.js";
import { credentialedOrigins } from "./middleware/security.js";
import { createEventStream, type EventStreamOptions } from "./ws.js";

export interface ServeOptions extends AppOptions {
  readonly host?: string;
  readonly port?: number;
  readonly events?: Pick<EventStreamOptions, "heartbeatMs" | "maxBufferedBytes" | "recheckMs">;
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

/**
 * Starts the HTTP server for a Sluice instance (its background work is started by the caller): the Koa app of
 * `createApp`, made a koa-websocket app so `app.listen` also serves the event stream at `/ws` and `{prefix}/ws`.
 */
export async function startServer(sluice: Sluice, options: ServeOptions = {}): Promise<RunningServer> {
  const stream = createEventStream(sluice, {
    ...options.events,
    paths: [OPERATIONS.events.path, `${options.prefix ?? "/api"}${OPERATIONS.events.path}`],
    proxy: options.proxy ?? false,
    trustedOrigins: credentialedOrigins(options.corsOrigins),
    allowedHosts: options.allowedHosts ?? [],
  });
  const app = websockify(createApp(sluice, options), stream.serverOptions);
  app.ws.use(stream.middleware);
  const server = app.listen(options.port ?? 8080, options.host ?? "0.0.0.0");
  server.keepAliveTimeout = 5_000;
  server.on("clientError", answerClientError);
  const wss = app.ws.server;
  // the WebSocket server re-emits the HTTP server's errors, which are handled on the HTTP server
  wss?.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => {
      stream.close();
      wss?.close();
      reject(e);
    };
    server.once("error", fail);
    server.once("listening", () => {
      server.off("error", fail);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = !options.host || options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host;
  const stopOpenModeWarning = warnWhileOpen(
    sluice,
    boundUrl(options.host ?? "0.0.0.0", port),
    options.openModeWarningMs,
  );
  let closing: Promise<void> | null = null;
  return {
    server,
    app,
    port,
    url: `http://${shownHost}:${port}`,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        stopOpenModeWarning();
        stream.close();
        wss?.close();
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
