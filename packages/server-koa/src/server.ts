import http from "node:http";
import type { AddressInfo } from "node:net";
import { isSluiceError, type Sluice } from "@sluice/core";
import type Koa from "koa";
import { createApp, type AppOptions } from "./app.js";
import { authorizeUpgrade } from "./auth/authorize-upgrade.js";
import { attachEventStream, type EventStreamOptions } from "./ws.js";

export interface ServeOptions extends AppOptions {
  readonly host?: string;
  readonly port?: number;
  readonly events?: EventStreamOptions;
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
        await authorizeUpgrade(sluice, req);
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
  let closing: Promise<void> | null = null;
  return {
    server,
    app,
    port,
    url: `http://${shownHost}:${port}`,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
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
