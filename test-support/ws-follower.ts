/** A WebSocket client of `/ws` for tests: keeps every message and waits for one that matches. */
import WebSocket from "ws";

export interface StreamMessage {
  type: string;
  seq?: number;
  run_id?: string;
  node_id?: string;
  status?: string;
  [k: string]: unknown;
}

export interface Follower {
  ws: WebSocket;
  messages: StreamMessage[];
  /** The first message (already received or still to come) that matches; rejects after `ms`. */
  until(pred: (m: StreamMessage) => boolean, ms?: number): Promise<StreamMessage>;
  send(message: unknown): void;
}

/** Opens `ws://…/ws` of `baseUrl` (`http://127.0.0.1:PORT`, with or without /api). */
export function follow(baseUrl: string): Promise<Follower> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/ws`);
  const messages: StreamMessage[] = [];
  const waiters = new Set<{ pred: (m: StreamMessage) => boolean; resolve: (m: StreamMessage) => void }>();
  ws.on("message", (data) => {
    const m = JSON.parse(data.toString()) as StreamMessage;
    messages.push(m);
    for (const w of waiters) {
      if (!w.pred(m)) continue;
      waiters.delete(w);
      w.resolve(m);
    }
  });
  return new Promise((resolve, reject) => {
    ws.once("error", reject);
    ws.once("open", () =>
      resolve({
        ws,
        messages,
        send: (message) => ws.send(JSON.stringify(message)),
        until: (pred, ms = 15_000) =>
          new Promise<StreamMessage>((res, rej) => {
            const found = messages.find(pred);
            if (found) return res(found);
            const waiter = { pred, resolve: res };
            waiters.add(waiter);
            setTimeout(() => {
              if (!waiters.delete(waiter)) return;
              rej(new Error(`timed out; got ${messages.map((m) => m.type).join(",")}`));
            }, ms).unref();
          }),
      }),
    );
  });
}
