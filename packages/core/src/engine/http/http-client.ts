import net from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { SluiceError } from "../../errors.js";
import {
  assertAddressAllowed,
  canonicalHost,
  guardedLookup,
  systemDnsResolver,
  type DnsResolver,
} from "./address-guard.js";

export { systemDnsResolver, type DnsResolver } from "./address-guard.js";

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the request (node timeout, run cancellation). */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  /** The final URL after redirects. */
  url: string;
  headers: Headers;
  text: string;
}

/** The HTTP port of the engine (source_api, sink_api, notify). Every request goes through the SSRF guard. */
export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
}

export interface HttpClientOptions {
  resolver?: DnsResolver;
  /** Redirect hops followed (each re-checked); default 5. */
  maxRedirects?: number;
  /**
   * Largest response body read, in bytes (default 64 MiB); a larger one fails the request instead of filling memory.
   */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Headers that carry no credential; the only ones still sent when a request moves to another origin. */
const NEUTRAL_HEADERS: ReadonlySet<string> = new Set(["accept", "accept-language", "content-type", "user-agent"]);

/**
 * The headers a request may carry to another origin (a redirect, a next-page link): every other header is dropped —
 * auth, cookies, api keys and any custom header a connection or a config supplied may hold a credential
 * (docs/security.md: credentials stay with their origin).
 */
export function headersForAnotherOrigin(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => NEUTRAL_HEADERS.has(name.toLowerCase())));
}

function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SluiceError("invalid", `invalid URL '${raw}'`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SluiceError("invalid", `unsupported URL scheme '${url.protocol}' (http and https only)`);
  }
  // IP literals never reach the lookup hook, so they are checked here
  const host = canonicalHost(url.hostname);
  if (net.isIP(host)) assertAddressAllowed(host);
  return url;
}

/** URL without credentials or query string, for logs and error messages (the query may carry tokens). */
export function describeUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

function findSluiceError(e: unknown): SluiceError | undefined {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof SluiceError) return cur;
  }
  return undefined;
}

function networkError(e: unknown, url: string, signal?: AbortSignal): SluiceError {
  const guard = findSluiceError(e);
  if (guard) return guard;
  if (signal?.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    const what = reason?.name === "TimeoutError" ? "timed out" : "was cancelled";
    return new SluiceError("unprocessable", `request to ${describeUrl(url)} ${what}`);
  }
  const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
  return new SluiceError("unprocessable", `request to ${describeUrl(url)} failed: ${cause}`);
}

/** Reads the body as UTF-8 text, refusing (and cancelling) one longer than `limit` bytes, declared or streamed. */
async function readLimited(
  res: Response | Awaited<ReturnType<typeof undiciFetch>>,
  limit: number,
  url: string,
): Promise<string> {
  const tooLarge = () =>
    new SluiceError("unprocessable", `response from ${describeUrl(url)} is larger than ${limit} bytes`);
  const declared = Number(res.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return "";
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  let received = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** Builds the guarded HTTP client: undici with a checking DNS lookup, redirects followed by hand and re-checked. */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(options.resolver ?? systemDnsResolver) } });
  const maxRedirects = options.maxRedirects ?? 5;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    async request(req) {
      let url = checkUrl(req.url);
      let method = req.method.toUpperCase();
      let body = req.body;
      let headers = { ...req.headers };
      for (let hop = 0; ; hop++) {
        let res: Awaited<ReturnType<typeof undiciFetch>>;
        try {
          res = await undiciFetch(url, { method, headers, body, redirect: "manual", signal: req.signal, dispatcher });
        } catch (e) {
          throw networkError(e, url.href, req.signal);
        }
        const location = res.headers.get("location");
        if (!REDIRECT_STATUSES.has(res.status) || !location) {
          let text: string;
          try {
            text = await readLimited(res, maxResponseBytes, url.href);
          } catch (e) {
            throw networkError(e, url.href, req.signal);
          }
          return { status: res.status, url: url.href, headers: res.headers as unknown as Headers, text };
        }
        await res.body?.cancel();
        if (hop >= maxRedirects)
          throw new SluiceError("unprocessable", `too many redirects (more than ${maxRedirects})`);
        const next = checkUrl(new URL(location, url).href);
        if (next.origin !== url.origin) headers = headersForAnotherOrigin(headers);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        url = next;
      }
    },
  };
}

let sharedClient: HttpClient | undefined;
/** The default client (system DNS), created on first use. */
export function defaultHttpClient(): HttpClient {
  sharedClient ??= createHttpClient();
  return sharedClient;
}
