/**
 * Whether an error means the database cannot be reached right now (restarting, connection lost, pool exhausted by
 * dead connections), as opposed to a statement it refused. Such a failure is worth retrying: the API answers it with
 * 503 `unavailable` and `Retry-After`, and the scheduler retries a slot it could not record.
 */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTCONN"]);
/** PostgreSQL SQLSTATEs: class 08 (connection exception) and 57P01–57P03 (shutdown, crash, not accepting yet). */
const PG_UNAVAILABLE = /^(08...|57P0[123])$/;
/** MySQL / MariaDB driver codes for a lost or refused connection. */
const MYSQL_CODES = new Set(["PROTOCOL_CONNECTION_LOST", "ER_SERVER_SHUTDOWN", "ER_CON_COUNT_ERROR", "ECONNREFUSED"]);
const MESSAGES = [
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "Knex: Timeout acquiring a connection",
  "Cannot use a pool after calling end",
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const { code, message, name } = e as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === "string" && (NETWORK_CODES.has(code) || MYSQL_CODES.has(code) || PG_UNAVAILABLE.test(code)))
      return true;
    if (name === "KnexTimeoutError") return true;
    if (typeof message === "string" && MESSAGES.some((m) => message.includes(m))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
