import pg from "pg";

/** Wait before reconnecting after the connection is lost (the server restarting, a network cut). */
const RECONNECT_MS = 1000;
/**
 * A LISTEN connection only receives, so a connection cut without a reset (an idle timeout in a NAT or load balancer,
 * a failover) would go unnoticed for the OS's keep-alive time (two hours): it is probed this often, and declared lost
 * when a probe is not answered within the same time.
 */
const PROBE_MS = 10_000;

/**
 * LISTENs on `channel` on a connection of its own (not the pool's: a pooled connection would be handed to queries and
 * its notifications lost). When the connection is lost it reconnects every second until it succeeds, and reports
 * `onNotify("")` after each reconnection: notifications sent while it was away are gone, so the listener should
 * look for what it missed. Never rejects: failures go to `onError`.
 */
export async function listenForNotifications(
  config: pg.ClientConfig,
  channel: string,
  onNotify: (payload: string) => void,
  onError: (e: unknown) => void,
): Promise<{ close(): Promise<void> }> {
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const probe = setInterval(() => {
    const c = client;
    if (!c) return;
    const timeout = setTimeout(() => c.emit("error", new Error("the LISTEN connection stopped answering")), PROBE_MS);
    timeout.unref();
    c.query("select 1").then(
      () => clearTimeout(timeout),
      () => clearTimeout(timeout), // a failed query ends the connection, which reports itself
    );
  }, PROBE_MS);
  probe.unref();

  const connect = async (): Promise<void> => {
    // named, so that an operator (and a test) can tell the listeners apart in pg_stat_activity
    const next = new pg.Client({ application_name: `sluice listen ${channel}`, ...config });
    let lost = false;
    const onLost = (e?: unknown) => {
      if (lost) return;
      lost = true;
      if (e !== undefined && !closed) onError(e);
      if (client === next) client = null;
      next.end().catch(() => undefined);
      reconnectLater();
    };
    next.on("notification", (n) => onNotify(n.payload ?? ""));
    next.on("error", onLost);
    next.on("end", () => onLost(new Error("the LISTEN connection ended")));
    try {
      await next.connect();
      await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (e) {
      onLost(e);
      throw e;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  };

  const reconnectLater = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        () => onNotify(""),
        () => undefined, // onLost reported it and scheduled the next try
      );
    }, RECONNECT_MS);
    retry.unref();
  };

  // a first attempt that fails keeps trying in the background, like a lost connection
  await connect().catch(() => undefined);
  return {
    async close() {
      closed = true;
      clearInterval(probe);
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
