import { isStreamedEventType, isTerminalEventType } from "@sluice/core/event-types";
import type { StreamedEvent, StreamServerMessage, StreamSubscribeMessage } from "@sluice/core/model";

/** A live event as the server streams it: the event plus a process-wide sequence number. */
export type StreamEvent = StreamedEvent;

/** The WebSocket constructor to use (browsers and Node ≥ 22 have one globally; on Node 20 pass `ws`). */
export type WebSocketLike = new (
  url: string,
  protocols?: string | string[],
) => {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
};

/**
 * Which events: a run's (with `since`, first the run's events after that sequence number), a pipeline's, or all.
 * The fields of the protocol's `subscribe` message.
 */
export type StreamFilter = Omit<StreamSubscribeMessage, "type">;

export interface SubscribeOptions extends StreamFilter {
  /** Reconnect after the socket drops (default true), replaying a run's missed events with `since`. */
  reconnect?: boolean;
  /** First reconnect delay in ms, doubling up to 30 s (default 500). */
  reconnectDelayMs?: number;
  WebSocket?: WebSocketLike;
  onError?: (error: unknown) => void;
  onClose?: () => void;
  /** Called each time a socket opens and the subscription is sent (also after a reconnect). */
  onOpen?: () => void;
  /** Called when a socket drops and a reconnect is scheduled. */
  onDrop?: () => void;
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
export function subscribeEvents(
  wsUrl: string,
  onEvent: (event: StreamEvent) => void,
  options: SubscribeOptions = {},
): Subscription {
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
      const subscribe: StreamSubscribeMessage = { type: "subscribe" };
      if (options.run_id) subscribe.run_id = options.run_id;
      if (options.pipeline_id) subscribe.pipeline_id = options.pipeline_id;
      // after a reconnect, `since` is the last sequence number delivered
      if (options.run_id && lastSeq !== undefined) subscribe.since = lastSeq;
      ws.send(JSON.stringify(subscribe));
      markReady();
      options.onOpen?.();
    };
    ws.onerror = (e) => {
      options.onError?.(e);
      failReady(new Error("WebSocket error"));
    };
    ws.onmessage = (message) => {
      let parsed: StreamServerMessage;
      try {
        parsed = JSON.parse(String(message.data)) as StreamServerMessage;
      } catch (e) {
        options.onError?.(e);
        return;
      }
      // hello, subscribed, pong and errors are the protocol's own; only events reach the caller
      if (typeof parsed?.type !== "string" || !isStreamedEventType(parsed.type)) return;
      const event = parsed as StreamedEvent;
      // until the server has handled the `subscribe`, a new socket hears every run
      if (options.run_id !== undefined && event.run_id !== options.run_id) return;
      if (options.pipeline_id !== undefined && event.pipeline_id !== options.pipeline_id) return;
      // already delivered; a terminal status read from the run itself (its events gone from the log) has seq 0
      if (event.seq > 0 && lastSeq !== undefined && options.run_id && event.seq <= lastSeq) return;
      if (event.seq > 0) lastSeq = event.seq;
      onEvent(event);
      if (options.run_id && event.run_id === options.run_id && isTerminalEventType(event.type)) stop();
    };
    ws.onclose = () => {
      if (stopped || options.reconnect === false) {
        options.onClose?.();
        return;
      }
      options.onDrop?.();
      const delay = Math.min(30_000, (options.reconnectDelayMs ?? 500) * 2 ** attempt++);
      timer = setTimeout(connect, delay);
    };
  };
  connect();
  return { ready, close: stop };
}
