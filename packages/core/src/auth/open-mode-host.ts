import { isIP } from "node:net";
import type { Principal } from "./principal.js";

/** The host name of a `Host` header (`name`, `name:port`, `[v6]:port`), lowercased, without a trailing dot. */
function hostnameOf(host: string): string | null {
  try {
    const name = new URL(`http://${host.trim()}`).hostname.replace(/\.$/, "");
    return name.startsWith("[") ? name.slice(1, -1) : name;
  } catch {
    return null;
  }
}

/** The last `Host` header seen and its host name: every request of one client names the server the same way. */
let lastHost: { host: string; name: string | null } | null = null;

function requestHostname(host: string): string | null {
  if (lastHost?.host !== host) lastHost = { host, name: hostnameOf(host) };
  return lastHost.name;
}

/**
 * DNS rebinding: while no user exists (open mode), whoever reaches the server is its administrator, and a web page
 * on any site can become "whoever" by pointing a name of its own (`rebind.evil.example`) at this server's address
 * after the page has loaded: the victim's browser then sends the page's requests here, as same-origin, with that
 * name in `Host`. So in open mode a request must name the server by something no web page controls: an IP address,
 * `localhost` (or a name under `.localhost`), a name without a dot (`sluice`, a container's name), or one of the
 * `allowed` hosts (`--allowed-hosts`). `host` is the raw `Host` header: with `--trust-proxy`, a page made same-origin
 * by rebinding could send `X-Forwarded-Host` too. Returns why the request of `principal` is refused, or null: only
 * open mode's anonymous caller is checked, and without a `Host` header (HTTP/1.0, no browser) there is nothing to.
 */
export function openModeHostRefusal(
  principal: Principal,
  host: string | undefined,
  allowed: readonly string[],
): string | null {
  if (principal.kind !== "anonymous" || !host) return null;
  const name = requestHostname(host);
  if (name !== null) {
    if (isIP(name) !== 0 || name === "localhost" || name.endsWith(".localhost") || !name.includes(".")) return null;
    // an allowed host may be given as an origin (`https://sluice.example`): its host name counts
    if (allowed.some((a) => hostnameOf(a.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")) === name)) return null;
  }
  const shown = (name ?? host).slice(0, 200);
  return (
    `Host '${shown}' is refused while the server has no users (open mode): a web page could point a name of its ` +
    `own at this server (DNS rebinding) and act as its administrator. Create the first user through localhost or an ` +
    `IP address, or start the server with --allowed-hosts ${shown}`
  );
}
