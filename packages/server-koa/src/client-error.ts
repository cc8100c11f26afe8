import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { errorCodeForStatus } from "@sluice/core";

/**
 * Node's parser refusing a request before Koa sees it (a request line with raw non-ASCII bytes, both
 * `Transfer-Encoding` and `Content-Length`, headers or URL over 16 KiB, a request that took too long): answered with
 * the API's error body (docs/http.md) where Node would write a bare status line, then the connection is closed.
 */
export function answerClientError(e: Error & { code?: string }, socket: Duplex): void {
  if (e.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = e.code === "HPE_HEADER_OVERFLOW" ? 431 : e.code === "HPE_REQUEST_TIMEOUT" ? 408 : 400;
  const message =
    status === 431
      ? "request headers (or URL) too large: at most 16 KiB"
      : status === 408
        ? "request timed out"
        : "malformed HTTP request";
  const body = JSON.stringify({ error: message, code: errorCodeForStatus(status) });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
