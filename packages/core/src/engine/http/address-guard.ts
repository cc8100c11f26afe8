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
 * endpoints. Loopback and private ranges stay allowed (local services, tests). An IPv6 address that carries an IPv4
 * address (see `embeddedIPv4s`) is also checked against the IPv4 rules, so the IPv4 ranges need no IPv6 twins.
 */
const BLOCKED_V4 = new net.BlockList();
BLOCKED_V4.addSubnet("169.254.0.0", 16, "ipv4"); // link-local, AWS/GCP/Azure metadata 169.254.169.254
BLOCKED_V4.addAddress("100.100.100.200", "ipv4"); // Alibaba Cloud metadata
const BLOCKED_V6 = new net.BlockList();
BLOCKED_V6.addSubnet("fe80::", 10, "ipv6"); // IPv6 link-local
BLOCKED_V6.addAddress("fd00:ec2::254", "ipv6"); // AWS IPv6 metadata

/** The eight 16-bit groups of an IPv6 address (`net.isIPv6` already holds); a zone (`%eth0`) is ignored. */
function ipv6Groups(address: string): number[] {
  let text = address.split("%")[0]!.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const ipv4Of = (high: number, low: number) => [high >>> 8, high & 0xff, low >>> 8, low & 0xff].join(".");

/**
 * The IPv4 addresses an IPv6 address stands for under the standard embeddings, each of which a translator, relay or
 * the host's own stack may turn into a connection to that IPv4 address:
 * IPv4-mapped `::ffff:0:0/96`, SIIT `::ffff:0:0:0/96`, IPv4-compatible `::/96`, NAT64 well-known `64:ff9b::/96` and
 * local-use `64:ff9b:1::/48` (RFC 8215; the RFC 6052 positions of its /48, /56, /64 and /96 prefixes), 6to4
 * `2002::/16` (bits 16–47) and Teredo `2001::/32` (server in bits 32–63, client in the last 32 bits XOR 0xffffffff).
 */
export function embeddedIPv4s(address: string): string[] {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last = ipv4Of(g[6]!, g[7]!);
  const found: string[] = [];
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) found.push(last); // mapped, compatible
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) found.push(last); // SIIT
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) found.push(last); // NAT64 well-known prefix
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    // NAT64 local-use prefix: the IPv4 follows the prefix, skipping bits 64–71 (RFC 6052 section 2.2)
    const bytes = g.flatMap((x) => [x >>> 8, x & 0xff]);
    const at = (...i: number[]) => i.map((n) => bytes[n]).join(".");
    found.push(last, at(6, 7, 9, 10), at(7, 9, 10, 11), at(9, 10, 11, 12));
  }
  if (g[0] === 0x2002) found.push(ipv4Of(g[1]!, g[2]!)); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) found.push(ipv4Of(g[2]!, g[3]!), ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)); // Teredo
  return found;
}

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

/**
 * True when `address` (an IP literal in any spelling) is link-local or a cloud-metadata address, or an IPv6 address
 * embedding one.
 */
export function isForbiddenAddress(address: string): boolean {
  const ip = canonicalHost(address);
  const family = net.isIP(ip);
  if (family === 4) return BLOCKED_V4.check(ip, "ipv4");
  if (family === 6) {
    return BLOCKED_V6.check(ip, "ipv6") || embeddedIPv4s(ip).some((v4) => BLOCKED_V4.check(v4, "ipv4"));
  }
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
