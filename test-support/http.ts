/** Starts a real Sluice server on an ephemeral port for HTTP tests, with a throw-away database. */
import { createSluice, silentLogger, type Sluice, type SluiceOptions } from "../packages/core/src/index.js";
import { startServer, type RunningServer, type ServeOptions } from "../packages/server-koa/src/index.js";
import { SluiceClient } from "../packages/client/src/index.js";
import type { DialectName } from "../packages/core/src/store/ports.js";
import { createTestDatabase, type TestDatabase } from "./databases.js";
import { TEST_JWT_SECRET } from "./secrets.js";

export { TEST_JWT_SECRET };

export interface TestServer {
  sluice: Sluice;
  server: RunningServer;
  db: TestDatabase;
  /** Base URL without /api. */
  baseUrl: string;
  client: SluiceClient;
  /** Raw fetch against `/api` + path. */
  fetch(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestServer(
  dialect: DialectName = "sqlite",
  options: Partial<SluiceOptions> = {},
  appOptions: Omit<ServeOptions, "host" | "port"> = {},
): Promise<TestServer> {
  const db = await createTestDatabase(dialect);
  // a fixed secret keeps server-database tests from writing .svc-jwt-secret into the working directory
  const sluice = await createSluice({ logger: silentLogger, jwtSecret: TEST_JWT_SECRET, ...options, database: db.url });
  await sluice.start();
  const server = await startServer(sluice, { ...appOptions, host: "127.0.0.1", port: 0 });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  return {
    sluice,
    server,
    db,
    baseUrl,
    client: new SluiceClient({ baseUrl }),
    fetch(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined) headers.set("content-type", "application/json");
      return fetch(`${baseUrl}/api${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    async close() {
      await server.close(1000);
      await sluice.close();
      await db.drop();
    },
  };
}

/** Another server on a test server's database, as a second `sluice serve` process would be. */
export interface SecondInstance {
  /** Base URL without /api. */
  baseUrl: string;
  close(): Promise<void>;
}

export async function startSecondInstance(t: TestServer): Promise<SecondInstance> {
  const sluice = await createSluice({ database: t.db.url, logger: silentLogger, jwtSecret: TEST_JWT_SECRET });
  const server = await startServer(sluice, { host: "127.0.0.1", port: 0 });
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    async close() {
      await server.close(1000);
      await sluice.close();
    },
  };
}
