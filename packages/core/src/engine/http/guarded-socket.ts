import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import { SluiceError } from "../../errors.js";
import { assertAddressAllowed, canonicalHost, guardedLookup, type DnsResolver } from "./address-guard.js";

/** The address-guard check for an IP literal (Node never calls the lookup hook for one); null when allowed. */
function literalRefusal(host: string): Error | null {
  const ip = canonicalHost(host);
  if (!net.isIP(ip)) return null;
  try {
    assertAddressAllowed(ip);
    return null;
  } catch (e) {
    return e as Error;
  }
}

/**
 * A TCP socket whose every `connect` goes through the address guard: IP literals are checked before connecting, host
 * names through the guarded lookup at connect time (so DNS rebinding cannot slip a metadata address in). Drivers
 * that connect a socket they are given (pg's `stream`, mysql2's `stream`, ssh2's `sock`) get one of these. Unix
 * socket paths are refused: connections made for a user go over TCP.
 */
export class GuardedSocket extends net.Socket {
  constructor(private readonly resolver: DnsResolver) {
    super();
  }

  override connect(...args: unknown[]): this {
    const [first, second] = args;
    const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
    const options =
      typeof first === "object" && first !== null
        ? (first as net.TcpNetConnectOpts & { path?: string })
        : { port: Number(first), host: typeof second === "string" ? second : "localhost", path: undefined };
    const host = options.host ?? "localhost";
    if (
      options.path !== undefined ||
      (typeof first === "string" && Number.isNaN(Number(first))) ||
      host.includes("/")
    ) {
      return this.refuse(
        new SluiceError("forbidden", "connections made for a pipeline go over TCP, not a unix socket"),
      );
    }
    const refusal = literalRefusal(host);
    if (refusal) return this.refuse(refusal);
    return super.connect({ ...options, host, lookup: guardedLookup(this.resolver) }, callback);
  }

  private refuse(error: Error): this {
    // asynchronously, as a failed DNS lookup would be: the driver has attached its error listener by then
    process.nextTick(() => this.destroy(error));
    return this;
  }
}

/** A guarded socket connecting to `host:port` (generic TCP test, ssh2 `sock`). */
export function connectGuarded(host: string, port: number, resolver: DnsResolver): GuardedSocket {
  return new GuardedSocket(resolver).connect(port, host);
}

type CreateConnection = (
  options: net.NetConnectOpts & { host?: string },
  callback: (err: Error | null, s: Duplex) => void,
) => Duplex;

function refusedSocket(error: Error): net.Socket {
  const socket = new net.Socket();
  process.nextTick(() => socket.destroy(error));
  return socket;
}

/**
 * Node HTTP(S) agents whose connections pass the address guard (the S3 SDK's request handler): the guarded lookup for
 * names, a check for IP literals.
 */
export function guardedAgents(resolver: DnsResolver): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  const lookup = guardedLookup(resolver);
  const guard = (agent: http.Agent): void => {
    const create = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent);
    (agent as unknown as { createConnection: CreateConnection }).createConnection = (options, callback) => {
      const refusal = literalRefusal(options.host ?? "localhost");
      return refusal ? refusedSocket(refusal) : create({ ...options, lookup } as net.NetConnectOpts, callback);
    };
  };
  const httpAgent = new http.Agent({ keepAlive: false });
  const httpsAgent = new https.Agent({ keepAlive: false });
  guard(httpAgent);
  guard(httpsAgent);
  return { httpAgent, httpsAgent };
}
