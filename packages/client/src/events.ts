import type { SluiceEvent } from "@sluice/core/model";

const CONTROL_TYPES = new Set(["hello", "subscribed", "error", "pong"]);
const TERMINAL_TYPES = new Set(["run.completed", "run.failed", "run.cancelled"]);

/** A live event as the server streams it: the event plus a process-wide sequence number. */
export type StreamEvent = SluiceEvent & { seq: number };

/** The WebSocket constructor to use (browsers and Node ≥ 22 have one globally; on Node 20 pass `ws`). */
export type WebSocketLike = new (url: string, protocols?: string | string[]) => {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
};

export interface SubscribeOptions {
  /** Only this run's events; with `since`, first replays the run's events after that sequence number. */
  run_id?: string;
  pipeline_id?: string;
  since?: number;
  /** Reconnect after the socket drops (default true), replaying a run's missed events with `since`. */
  reconnect?: boolean;
  /** First reconnect delay in ms, doubling up to 30 s (default 500). */
  reconnectDelayMs?: number;
  WebSocket?: WebSocketLike;
  onError?: (error: unknown) => void;
  onClose?: () => void;
}

export interface Subscription {
  /** Resolves once the first socket is open and the subscription was sent. */
  ready: Promise<void>;
  /** Closes the socket and stops reconnecting. */
  close(): void;
}

/**
 * Opens `/ws`, sends the subscription filter and calls `onEvent` for each event. When the socket drops it reconnects
 * with backoff; for a run subscription it asks for the events after the last sequence number seen, so a terminal
 * status is never missed. A run subscription stops by itself after the run's terminal event.
 */
export function subscribeEvents(wsUrl: string, onEvent: (event: StreamEvent) => void, options: SubscribeOptions = {}): Subscription {
  const Impl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketLike }).WebSocket;
  if (!Impl) throw new Error("no WebSocket implementation: pass options.WebSocket (e.g. the `ws` package on Node 20)");
  let lastSeq = options.since;
  let stopped = false;
  let attempt = 0;
  let socket: InstanceType<WebSocketLike> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let markReady: () => void = () => undefined;
  let failReady: (e: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined);

  const stop = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    socket?.close();
  };

  const connect = () => {
    const ws = new Impl(wsUrl);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      const filter: Record<string, unknown> = { type: "subscribe" };
      if (options.run_id) filter.run_id = options.run_id;
      if (options.pipeline_id) filter.pipeline_id = options.pipeline_id;
      if (options.run_id && lastSeq !== undefined) filter.since = lastSeq;
      ws.send(JSON.stringify(filter));
      markReady();
    };
    ws.onerror = (e) => {
      options.onError?.(e);
      failReady(new Error("WebSocket error"));
    };
    ws.onmessage = (message) => {
      let parsed: { type?: string; seq?: number; run_id?: string };
      try {
        parsed = JSON.parse(String(message.data)) as typeof parsed;
      } catch (e) {
        options.onError?.(e);
        return;
      }
      if (!parsed.type || CONTROL_TYPES.has(parsed.type)) return;
      if (typeof parsed.seq === "number") {
        if (lastSeq !== undefined && options.run_id && parsed.seq <= lastSeq) return; // already delivered
        lastSeq = parsed.seq;
      }
      onEvent(parsed as StreamEvent);
      if (options.run_id && parsed.run_id === options.run_id && TERMINAL_TYPES.has(parsed.type)) stop();
    };
    ws.onclose = () => {
      if (stopped || options.reconnect === false) {
        options.onClose?.();
        return;
      }
      const delay = Math.min(30_000, (options.reconnectDelayMs ?? 500) * 2 ** attempt++);
      timer = setTimeout(connect, delay);
    };
  };
  connect();
  return { ready, close: stop };
}
