import dns from "node:dns";
import type { LookupAddress, LookupOptions } from "node:dns";
import net from "node:net";
import { SluiceError } from "../../errors.js";

/** Resolves a host name to its addresses (injectable so tests can map names without real DNS). */
export type DnsResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemDnsResolver: DnsResolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * Addresses no outbound connection made for a user may reach (docs/security.md): link-local and cloud-metadata
 * endpoints. Loopback and
 * private ranges stay allowed (local services, tests). IPv4 ranges also match their IPv4-mapped IPv6 forms
 * (`::ffff:169.254.169.254`); the IPv4-compatible and NAT64 forms are listed explicitly.
 */
const BLOCKED = new net.BlockList();
BLOCKED.addSubnet("169.254.0.0", 16, "ipv4"); // link-local, AWS/GCP/Azure metadata 169.254.169.254
BLOCKED.addAddress("100.100.100.200", "ipv4"); // Alibaba Cloud metadata
BLOCKED.addSubnet("fe80::", 10, "ipv6"); // IPv6 link-local
BLOCKED.addAddress("fd00:ec2::254", "ipv6"); // AWS IPv6 metadata
BLOCKED.addSubnet("::a9fe:0", 112, "ipv6"); // IPv4-compatible ::169.254.x.x
BLOCKED.addSubnet("64:ff9b::a9fe:0", 112, "ipv6"); // NAT64 64:ff9b::169.254.x.x

/**
 * Canonical form of a host as a URL would connect to it: `0xa9fea9fe`, `2852039166`, `0251.0376.0251.0376` and
 * other IPv4 spellings become dotted decimal; IPv6 loses its brackets and is compressed. Names stay names.
 */
export function canonicalHost(host: string): string {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  try {
    const hostname = new URL(`http://${net.isIPv6(bare) ? `[${bare}]` : bare}/`).hostname;
    return hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  } catch {
    return bare.toLowerCase();
  }
}

/** True when `address` (an IP literal in any spelling) is link-local or a cloud-metadata address. */
export function isForbiddenAddress(address: string): boolean {
  const ip = canonicalHost(address);
  const family = net.isIP(ip);
  if (family === 4) return BLOCKED.check(ip, "ipv4");
  if (family === 6) return BLOCKED.check(ip, "ipv6");
  return false;
}

/** Throws a SluiceError("forbidden") for a forbidden address; `via` names the host name that resolved to it. */
export function assertAddressAllowed(address: string, via?: string): void {
  if (isForbiddenAddress(address)) {
    const what = via && via !== address ? `'${via}' resolves to ${address}, which` : `address ${address}`;
    throw new SluiceError(
      "forbidden",
      `${what} is link-local or a cloud-metadata address; outbound connections may not reach it`,
    );
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `net.connect` lookup hook that resolves through `resolver` and refuses forbidden addresses at connect time, so
 * a DNS answer that changes between a check and the connection (rebinding) cannot slip through. Node skips the
 * lookup for IP literals: callers check those with `assertAddressAllowed` (see guarded-socket.ts).
 */
export function guardedLookup(resolver: DnsResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname)
      .then((all) => {
        const wanted =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0)
          throw new SluiceError("unprocessable", `host '${hostname}' did not resolve to an address`);
        for (const a of wanted) assertAddressAllowed(a.address, hostname);
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      })
      .catch((e: unknown) => callback(e as NodeJS.ErrnoException, "", 0));
  };
}
