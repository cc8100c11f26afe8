/** A real HTTP peer on 127.0.0.1 for node tests: records every request and answers through a handler. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ResolvedConnection, ResolvedVariable, SecretsResolver } from "../../src/connectors/resolver.js";
import { createNodeContext, type NodeContextOptions } from "../../src/engine/node-context.js";
import type { NodeContext } from "../../src/engine/node-type.js";
import type { LogLevel } from "../../src/model/run.js";
import { SluiceError } from "../../src/errors.js";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface PeerReply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
  /** Never answer (timeout tests). */
  hang?: boolean;
}

export interface PeerServer {
  url: string;
  port: number;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** `host` is a loopback address: 127.0.0.2 plays "another origin" (Linux routes all of 127/8 to lo). */
export async function startPeer(
  handler: (req: ReceivedRequest) => PeerReply = () => ({ json: [] }),
  host: `127.${number}.${number}.${number}` = "127.0.0.1",
): Promise<PeerServer> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(r);
      const reply = handler(r);
      if (reply.hang) return;
      const text = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? "");
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Configuration of stored connections for a test (not a mock: the same interface the services implement). A
 * variable given as a string is a plain `string` variable; `{ value, secret: true }` is a secret one.
 */
export function connectionsOf(
  connections: Partial<ResolvedConnection>[],
  variables: Record<string, string | ResolvedVariable> = {},
): SecretsResolver {
  return {
    async connection(connId) {
      const c = connections.find((x) => x.conn_id === connId);
      if (!c) throw new SluiceError("not_found", `connection '${connId}' not found`);
      return {
        type: "http",
        host: "",
        port: null,
        schema: "",
        login: "",
        password: "",
        extra: {},
        uri: "",
        conn_id: connId,
        ...c,
      };
    },
    async variable(key) {
      if (!Object.hasOwn(variables, key)) throw new SluiceError("not_found", `variable '${key}' not found`);
      const v = variables[key]!;
      return typeof v === "string" ? { value: v, secret: false } : v;
    },
  };
}

export interface TestContext {
  ctx: NodeContext;
  logs: { level: LogLevel; message: string }[];
}

/** A node context for running one node type alone; logs are collected. */
export function nodeContext(type: string, options: Partial<NodeContextOptions> = {}): TestContext {
  const logs: { level: LogLevel; message: string }[] = [];
  const ctx = createNodeContext({
    runId: "run-1",
    pipelineId: "pipe-1",
    pipelineName: "Daily orders",
    node: { id: `${type}_1`, type, name: type, config: {}, position: { x: 0, y: 0 } } as NodeContextOptions["node"],
    fileRoots: [],
    log: (level, message) => logs.push({ level, message }),
    ...options,
  });
  return { ctx, logs };
}
