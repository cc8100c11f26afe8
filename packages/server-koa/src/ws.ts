import {
  describeIssues,
  errorCodeForStatus,
  isSluiceError,
  OPERATIONS,
  StreamClientMessageSchema,
  type Sluice,
  type StreamedEvent,
  type StreamServerMessage,
  type StreamSubscribeMessage,
} from "@sluice/core";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { setImmediate as nextTurn, setTimeout as delay } from "node:timers/promises";
import type { ServerOptions, WebSocket } from "ws";
import { authorizeUpgrade, type UpgradeOriginOptions } from "./auth/authorize-upgrade.js";

export interface EventStreamOptions extends UpgradeOriginOptions {
  /** Where the stream is served (default `/ws` and `/api/ws`); any other upgrade is answered 404. */
  readonly paths?: readonly string[];
  /** How often clients are pinged; one that has not answered the previous ping is dropped (default 30 s). */
  readonly heartbeatMs?: number;
  /** A client whose unsent data exceeds this is dropped instead of growing server memory (default 1 MiB). */
  readonly maxBufferedBytes?: number;
  /**
   * How often each socket's credentials are checked again (default 10 s): one whose token expired, was revoked by a
   * password change or belongs to a deleted user, or an anonymous one once open mode ended, is closed (1008).
   */
  readonly recheckMs?: number;
}

export interface EventStream {
  /** The WebSocket server options to give koa-websocket (`websockify(app, serverOptions)`). */
  readonly serverOptions: ServerOptions;
  /** Serves one accepted socket: koa-websocket middleware (`app.ws.use(middleware)`). */
  readonly middleware: (ctx: { websocket: WebSocket; req?: IncomingMessage }) => void;
  /** Stops the heartbeat and closes every socket. */
  close(): void;
}

type Filter = Omit<StreamSubscribeMessage, "type" | "since">;

const JSON_HEADERS = { "Content-Type": "application/json" };
/** Every message is a text frame, bytes included (a browser's WebSocket hands a binary one over as a `Blob`). */
const TEXT_FRAME = { binary: false } as const;
/** Events a `since` replay reads from the log at a time. */
const REPLAY_PAGE = 1000;
/** Sockets whose credentials are checked again in one turn of the event loop. */
const RECHECKS_PER_TURN = 50;
/** How long a replay waits for a socket to take what it was sent before the next page; then the client is dropped. */
const REPLAY_DRAIN_MS = 10_000;
/**
 * How many sent events a socket remembers, so that a replay never repeats one (about 40 KB once full). A replay
 * overlaps what the socket was sent of the run between its connect (or an earlier, wider subscription) and its
 * `subscribe`: usually a few events.
 */
const REMEMBERED_SEQS = 1024;

/** The last `size` seqs added (one sequence for every instance), in a ring with a set to look them up. */
class RecentSeqs {
  private readonly seqs = new Set<number>();
  private readonly ring: number[] = [];
  private oldest = 0;
  constructor(private readonly size: number) {}

  /** Adds `seq`; false if it was among the last `size` already. */
  add(seq: number): boolean {
    if (this.seqs.has(seq)) return false;
    this.seqs.add(seq);
    if (this.ring.length < this.size) this.ring.push(seq);
    else {
      this.seqs.delete(this.ring[this.oldest]!);
      this.ring[this.oldest] = seq;
      this.oldest = (this.oldest + 1) % this.size;
    }
    return true;
  }
}

const matches = (filter: Filter, e: StreamedEvent) =>
  (filter.run_id === undefined || e.run_id === filter.run_id) &&
  (filter.pipeline_id === undefined || e.pipeline_id === filter.pipeline_id);

/** Why a client was dropped: every frame still queued for it fails with this one error (`drop`). */
const DROPPED = new Error("the event stream client was dropped");

/**
 * Live events over WebSocket (docs/events.md), served through koa-websocket: `serverOptions` go to its WebSocket
 * server, `middleware` to `app.ws.use`. The upgrade is authenticated in `verifyClient` like the API, so a refused
 * client gets a plain HTTP 401/403 (404 for another path) before any handshake. Client messages are parsed with the
 * model's schema; everything sent is a `StreamServerMessage`.
 */
export function createEventStream(sluice: Sluice, options: EventStreamOptions = {}): EventStream {
  const paths = new Set(options.paths ?? [OPERATIONS.events.path, `/api${OPERATIONS.events.path}`]);
  const maxBuffered = options.maxBufferedBytes ?? 1024 * 1024;
  const sockets = new Set<WebSocket>();
  const alive = new WeakMap<WebSocket, boolean>();
  /** The upgrade request of each socket: its credentials, checked again every `recheckMs`. */
  const upgrades = new WeakMap<WebSocket, IncomingMessage>();

  /**
   * Closes `ws` at once, as `terminate()` does, but fails every frame still queued for it with one error.
   * `terminate()` has each fail with an error of its own, made with its stack trace: 16 clients that had stopped
   * reading, dropped together, held the server for 0.4–0.6 s (50: about a second; found by a helper's sweep).
   */
  const drop = (ws: WebSocket): void => {
    const socket = upgrades.get(ws)?.socket;
    if (socket && !socket.destroyed) socket.destroy(DROPPED);
    // closing now, as `terminate()` says at once (the socket's own error reaches `ws` only in a later tick)
    ws.terminate();
  };

  // the two-parameter form: ws waits for `done`, so the upgrade is answered only after the credentials are checked
  const verifyClient: ServerOptions["verifyClient"] = ({ req }, done) => {
    // the API's error body (docs/http.md), as a plain HTTP answer before any handshake
    const refuse = (status: number, message: string, code: string = errorCodeForStatus(status)) =>
      done(false, status, JSON.stringify({ error: message, code }), JSON_HEADERS);
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (!paths.has(path)) return refuse(404, `no WebSocket endpoint at ${path}`);
    authorizeUpgrade(sluice, req, options).then(
      () => done(true),
      (e: unknown) => {
        if (isSluiceError(e)) return refuse(e.status, e.message, e.code);
        sluice.options.logger.error("WebSocket upgrade failed", { error: e instanceof Error ? e.message : String(e) });
        refuse(500, "internal server error");
      },
    );
  };

  /**
   * An event as every socket sends it: the journal's text of it (made once), as UTF-8 bytes, made once too. A burst of
   * frames whose every part is bytes is written in one `writev` without converting each part (a 40-node chain's end:
   * 126 frames in 0.22–0.25 ms instead of 0.50–0.56 ms, docs/performance-history.md).
   */
  const frames = new WeakMap<StreamedEvent, Buffer>();
  const frameOf = (event: StreamedEvent): Buffer => {
    let frame = frames.get(event);
    if (frame === undefined) {
      frame = Buffer.from(sluice.journal.textOf(event));
      frames.set(event, frame);
    }
    return frame;
  };

  /**
   * `socket` is the connection under `ws` (the upgrade request's). Frames sent together (the events of one batch,
   * delivered in one go) are held (corked) and written once that code is done, before any other callback runs: one
   * system call for a burst of events instead of one each, and no wait for the next turn of the event loop, which a
   * chain of nodes that do no I/O can hold for milliseconds.
   */
  function serve(ws: WebSocket, socket: Socket | undefined): void {
    let filter: Filter = {};
    sockets.add(ws);
    alive.set(ws, true);
    let corked = false;
    /** Sends `message` as a text frame (an event: the bytes made once for every socket, `frameOf`). */
    const send = (message: StreamServerMessage, data: string | Buffer = JSON.stringify(message)) => {
      if (ws.readyState !== ws.OPEN) return;
      // checked before corking: what this burst adds is not yet a client falling behind
      if (!corked && ws.bufferedAmount > maxBuffered) {
        drop(ws);
        return;
      }
      if (socket && !corked) {
        corked = true;
        socket.cork();
        queueMicrotask(() => {
          corked = false;
          socket.uncork();
        });
      }
      ws.send(data, TEXT_FRAME);
    };
    // a `since` replay skips what the socket was sent already: before its `subscribe` was handled it may have heard
    // the same events live. A terminal status read from the run itself, its events gone from the log, has no seq
    // (0): never skipped.
    const sent = new RecentSeqs(REMEMBERED_SEQS);
    const sendEvent = (event: StreamedEvent) => {
      if (ws.readyState !== ws.OPEN || (event.seq > 0 && !sent.add(event.seq))) return;
      send(event, frameOf(event));
    };
    /**
     * Whether a replay may send its next page: after a turn of the event loop (on SQLite the log's pages are read
     * without one, and a run's 80,000 events held the server for half a second), once what the socket was sent has
     * mostly gone out. False once it is closed; one that takes nothing for REPLAY_DRAIN_MS is dropped.
     */
    const readyForMore = async (): Promise<boolean> => {
      const deadline = Date.now() + REPLAY_DRAIN_MS;
      await nextTurn();
      while (ws.readyState === ws.OPEN && ws.bufferedAmount > maxBuffered / 2) {
        if (Date.now() > deadline) drop(ws);
        else await delay(10);
      }
      return ws.readyState === ws.OPEN;
    };
    // while a subscription's replay is read from the event log, live events of that run wait, then follow it
    let held: StreamedEvent[] | null = null;
    /** Counts subscribes and unsubscribes: a replay stops once a newer one has come. */
    let subscription = 0;
    const unsubscribe = sluice.journal.subscribe((event) => {
      if (!matches(filter, event)) return;
      if (held) held.push(event);
      else sendEvent(event);
    });
    ws.on("pong", () => alive.set(ws, true));
    ws.on("close", () => {
      unsubscribe();
      sockets.delete(ws);
    });
    ws.on("error", () => drop(ws));
    ws.on("message", (data) => {
      let raw: unknown;
      try {
        raw = JSON.parse(data.toString());
      } catch {
        return send({ type: "error", error: "messages must be JSON" });
      }
      const parsed = StreamClientMessageSchema.safeParse(raw);
      if (!parsed.success) return send({ type: "error", error: describeIssues(parsed.error.issues) });
      const message = parsed.data;
      switch (message.type) {
        case "ping":
          return send({ type: "pong", seq: sluice.journal.lastSeq });
        case "unsubscribe":
          filter = {};
          held = null;
          subscription++;
          return send({ type: "subscribed", seq: sluice.journal.lastSeq });
        case "subscribe": {
          const { type: _type, since, ...next } = message;
          filter = next;
          held = null;
          const mine = ++subscription;
          const current = () => subscription === mine;
          send({ type: "subscribed", ...next, seq: sluice.journal.lastSeq });
          if (next.run_id !== undefined && since !== undefined) {
            const waiting: StreamedEvent[] = [];
            held = waiting;
            const more = async (last: number) => {
              // what the log will send again need not wait here meanwhile
              const later = waiting.filter((e) => e.seq > last);
              waiting.splice(0, waiting.length, ...later);
              return current() && (await readyForMore()) && current();
            };
            const replayed = (e: StreamedEvent) => {
              if (current()) sendEvent(e);
            };
            void replay(next.run_id, since, replayed, more).then((sent) => {
              if (!current()) return; // subscribed again meanwhile: that subscription takes over
              held = null;
              for (const e of waiting) if (e.seq > sent && matches(filter, e)) sendEvent(e);
            });
          }
          return;
        }
      }
    });
    send({ type: "hello", seq: sluice.journal.lastSeq });
  }

  /**
   * Sends the run's logged events after `since`; a run the log has forgotten (events older than its retention) gets
   * its terminal event, if it ended, from the run itself. Resolves with the highest `seq` sent. `more` is asked
   * before each page after the first, with the highest `seq` sent so far, and ends the replay when it says no (the
   * socket closed, or subscribed again).
   */
  async function replay(
    runId: string,
    since: number,
    send: (e: StreamedEvent) => void,
    more: (last: number) => Promise<boolean>,
  ): Promise<number> {
    // only what was missed is read, a page at a time (a run may have logged megabytes, and many sockets may replay it
    // at once: a client that does not take the pages is dropped); then whether the log still knows the run
    let last = since;
    for (;;) {
      const page = await sluice.journal.since(runId, last, REPLAY_PAGE).catch(() => []);
      for (const e of page) send(e);
      if (page.length > 0) last = page[page.length - 1]!.seq;
      if (page.length < REPLAY_PAGE) break;
      if (!(await more(last))) return last;
    }
    if (last > since) return last;
    if (await sluice.journal.holds(runId).catch(() => false)) return since;
    const terminal = await sluice.runs.terminalEvent(runId).catch(() => null);
    if (terminal) send(terminal);
    return Math.max(since, terminal?.seq ?? 0);
  }

  /** Sockets whose check is still running (a slow database): not checked again until it ends. */
  const checking = new WeakSet<WebSocket>();
  const recheckAll = async () => {
    let started = 0;
    for (const ws of [...sockets]) {
      const request = upgrades.get(ws);
      if (!request || checking.has(ws) || ws.readyState !== ws.OPEN) continue;
      checking.add(ws);
      authorizeUpgrade(sluice, request, options)
        .catch((e: unknown) => {
          // refused now (401/403); a database that is briefly away (503) closes nothing
          if (isSluiceError(e) && (e.status === 401 || e.status === 403)) ws.close(1008, "credentials no longer valid");
        })
        .finally(() => checking.delete(ws));
      // a turn for the server's other work every RECHECKS_PER_TURN sockets: on SQLite a check's reads resolve without
      // one, and 2,000 sockets held the server for a quarter of a second every 10 s (found by a helper's sweep)
      if (++started % RECHECKS_PER_TURN === 0) await nextTurn();
    }
  };
  const recheck = setInterval(() => void recheckAll(), options.recheckMs ?? 10_000);
  recheck.unref();

  const heartbeat = setInterval(() => {
    for (const ws of sockets) {
      if (alive.get(ws) === false) {
        drop(ws);
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();

  return {
    serverOptions: { verifyClient, maxPayload: 64 * 1024 },
    middleware: (ctx) => {
      if (ctx.req) upgrades.set(ctx.websocket, ctx.req);
      serve(ctx.websocket, ctx.req?.socket);
    },
    close() {
      clearInterval(heartbeat);
      clearInterval(recheck);
      for (const ws of sockets) drop(ws);
    },
  };
}
