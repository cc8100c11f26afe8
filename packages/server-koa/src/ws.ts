import type http from "node:http";
import type { Duplex } from "node:stream";
import type { Sluice, StreamedEvent } from "@sluice/core";
import { WebSocketServer, type WebSocket } from "ws";

/**
 * Live events over WebSocket at `/ws` and `/api/ws`. `ws` is used directly (rather than koa-websocket) so the
 * upgrade can be authenticated and refused with a plain HTTP status before any WebSocket handshake, and so it
 * attaches to the same HTTP server as the Koa app without a second middleware stack.
 */
export type UpgradeDecision = { ok: true } | { ok: false; status: number; message: string };

export interface EventStreamOptions {
  paths?: readonly string[];
  authorize?: (req: http.IncomingMessage) => Promise<UpgradeDecision>;
  /** Catch-up helper: the stored terminal event of a finished run, for runs older than the in-memory journal. */
  terminalEvent?: (runId: string) => Promise<StreamedEvent | null>;
  heartbeatMs?: number;
  /** A client whose unsent data exceeds this is dropped instead of growing server memory. */
  maxBufferedBytes?: number;
}

interface Filter {
  run_id?: string;
  pipeline_id?: string;
}

interface ClientMessage {
  type?: unknown;
  run_id?: unknown;
  pipeline_id?: unknown;
  since?: unknown;
}

const STATUS_TEXT: Record<number, string> = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" };

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const matches = (filter: Filter, e: StreamedEvent) =>
  (filter.run_id === undefined || e.run_id === filter.run_id) && (filter.pipeline_id === undefined || e.pipeline_id === filter.pipeline_id);

export function attachEventStream(server: http.Server, sluice: Sluice, options: EventStreamOptions = {}): { close(): Promise<void> } {
  const paths = new Set(options.paths ?? ["/ws", "/api/ws"]);
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const alive = new WeakMap<WebSocket, boolean>();

  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (!paths.has(path)) {
      refuse(socket, 404, `no WebSocket endpoint at ${path}`);
      return;
    }
    socket.on("error", () => socket.destroy());
    void (options.authorize?.(req) ?? Promise.resolve<UpgradeDecision>({ ok: true }))
      .then((decision) => {
        if (!decision.ok) return refuse(socket, decision.status, decision.message);
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
      })
      .catch(() => refuse(socket, 500, "internal server error"));
  };
  server.on("upgrade", onUpgrade);

  wss.on("connection", (ws: WebSocket) => {
    let filter: Filter = {};
    alive.set(ws, true);
    const send = (message: unknown) => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > maxBuffered) {
        ws.terminate();
        return;
      }
      ws.send(JSON.stringify(message));
    };
    const unsubscribe = sluice.journal.subscribe((event) => {
      if (matches(filter, event)) send(event);
    });
    ws.on("pong", () => alive.set(ws, true));
    ws.on("close", unsubscribe);
    ws.on("error", () => ws.terminate());
    ws.on("message", (data) => {
      let msg: ClientMessage;
      try {
        msg = JSON.parse(data.toString()) as ClientMessage;
      } catch {
        send({ type: "error", error: "messages must be JSON" });
        return;
      }
      if (msg.type === "ping") return send({ type: "pong", seq: sluice.journal.lastSeq });
      if (msg.type === "unsubscribe") {
        filter = {};
        return send({ type: "subscribed", seq: sluice.journal.lastSeq });
      }
      if (msg.type !== "subscribe") return send({ type: "error", error: "unknown message type (use subscribe, unsubscribe or ping)" });
      const next: Filter = {};
      if (typeof msg.run_id === "string") next.run_id = msg.run_id;
      if (typeof msg.pipeline_id === "string") next.pipeline_id = msg.pipeline_id;
      const since = typeof msg.since === "number" && Number.isInteger(msg.since) && msg.since >= 0 ? msg.since : null;
      if (msg.since !== undefined && since === null) return send({ type: "error", error: "since must be a non-negative integer" });
      filter = next;
      send({ type: "subscribed", ...next, seq: sluice.journal.lastSeq });
      if (next.run_id && since !== null) void replay(next.run_id, since, send);
    });
    send({ type: "hello", seq: sluice.journal.lastSeq });
  });

  async function replay(runId: string, since: number, send: (m: unknown) => void): Promise<void> {
    const missed = sluice.journal.since(runId, since);
    for (const e of missed) send(e);
    if (missed.some((e) => e.type === "run.completed" || e.type === "run.failed" || e.type === "run.cancelled")) return;
    if (sluice.journal.since(runId, 0).length > 0) return;
    const terminal = await options.terminalEvent?.(runId).catch(() => null);
    if (terminal) send(terminal);
  }

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();

  return {
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(heartbeat);
        server.off("upgrade", onUpgrade);
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
}
