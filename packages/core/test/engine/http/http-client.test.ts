import { afterEach, describe, expect, it } from "vitest";
import { createHttpClient, type DnsResolver } from "../../../src/engine/http/http-client.js";
import { SluiceError } from "../../../src/errors.js";
import { startPeer, type PeerReply, type PeerServer } from "../peer-server.js";

/** Test DNS: maps made-up names; anything else is unknown. Nothing here ever leaves 127.0.0.1. */
function testResolver(map: Record<string, string>, asked: string[] = []): DnsResolver {
  return async (hostname) => {
    asked.push(hostname);
    const address = map[hostname];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  };
}

let peer: PeerServer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

describe("guarded HTTP client", () => {
  it("reaches loopback through an injected resolver", async () => {
    peer = await startPeer(() => ({ json: { ok: true } }));
    const asked: string[] = [];
    const client = createHttpClient({ resolver: testResolver({ "api.test": "127.0.0.1" }, asked) });
    const res = await client.request({ method: "GET", url: `http://api.test:${peer.port}/x` });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ ok: true });
    expect(asked).toContain("api.test");
    expect(peer.received[0]!.headers.host).toBe(`api.test:${peer.port}`);
  });

  it("refuses a name that resolves to the metadata address in the lookup hook, before any socket opens", async () => {
    const asked: string[] = [];
    const client = createHttpClient({ resolver: testResolver({ "metadata.test": "169.254.169.254" }, asked) });
    const err = await client
      .request({ method: "GET", url: "http://metadata.test/latest/meta-data/" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SluiceError);
    expect((err as SluiceError).code).toBe("forbidden");
    expect((err as SluiceError).message).toMatch(/'metadata.test' resolves to 169.254.169.254/);
    expect(asked).toEqual(["metadata.test"]);
  });

  it("refuses names resolving to IPv6 link-local, the AWS IPv6 metadata and IPv4-mapped forms", async () => {
    const client = createHttpClient({
      resolver: testResolver({
        "ll.test": "fe80::1",
        "aws6.test": "fd00:ec2::254",
        "mapped.test": "::ffff:169.254.169.254",
      }),
    });
    for (const host of ["ll.test", "aws6.test", "mapped.test"]) {
      await expect(client.request({ method: "GET", url: `http://${host}/` })).rejects.toThrow(/cloud-metadata/);
    }
  });

  it.each([
    "http://169.254.169.254/",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://0251.0376.0251.0376/",
    "http://[fe80::1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[fd00:ec2::254]/",
  ])("refuses the literal URL %s without resolving or connecting", async (url) => {
    const asked: string[] = [];
    const client = createHttpClient({ resolver: testResolver({}, asked) });
    await expect(client.request({ method: "GET", url })).rejects.toThrow(/link-local or a cloud-metadata address/);
    expect(asked).toEqual([]);
  });

  it("re-checks every redirect hop: a redirect to a metadata address or name is refused", async () => {
    peer = await startPeer((req) =>
      req.url === "/to-literal"
        ? { status: 302, headers: { location: "http://169.254.169.254/latest/" } }
        : { status: 307, headers: { location: "http://metadata.test/latest/" } },
    );
    const client = createHttpClient({ resolver: testResolver({ "metadata.test": "169.254.169.254" }) });
    await expect(client.request({ method: "GET", url: `${peer.url}/to-literal` })).rejects.toThrow(
      /address 169.254.169.254/,
    );
    await expect(client.request({ method: "GET", url: `${peer.url}/to-name` })).rejects.toThrow(
      /'metadata.test' resolves to/,
    );
    expect(peer.received.map((r) => r.url)).toEqual(["/to-literal", "/to-name"]);
  });

  it("follows allowed redirects up to five hops, then stops", async () => {
    peer = await startPeer((req) => {
      const n = Number(req.url.slice(1));
      return n < 10 ? { status: 302, headers: { location: `/${n + 1}` } } : { json: { n } };
    });
    const client = createHttpClient();
    const ok = await client.request({ method: "GET", url: `${peer.url}/5` });
    expect(JSON.parse(ok.text)).toEqual({ n: 10 });
    expect(ok.url).toBe(`${peer.url}/10`);
    await expect(client.request({ method: "GET", url: `${peer.url}/0` })).rejects.toThrow(/too many redirects/);
  });

  it("drops credentials when a redirect changes origin", async () => {
    const other = await startPeer(() => ({ json: [] }));
    peer = await startPeer(() => ({ status: 307, headers: { location: `${other.url}/landing` } }));
    try {
      await createHttpClient().request({
        method: "POST",
        url: peer.url,
        headers: { authorization: "Bearer secret" },
        body: "[]",
      });
      expect(peer.received[0]!.headers.authorization).toBe("Bearer secret");
      expect(other.received[0]!.headers.authorization).toBeUndefined();
      expect(other.received[0]!.method).toBe("POST");
    } finally {
      await other.close();
    }
  });

  it("refuses other schemes", async () => {
    await expect(createHttpClient().request({ method: "GET", url: "file:///etc/passwd" })).rejects.toThrow(
      /unsupported URL scheme/,
    );
  });

  it("refuses a response body larger than the limit, declared or streamed, and still reads one within it", async () => {
    const big = "x".repeat(300_000);
    peer = await startPeer((req): PeerReply =>
      req.url === "/declared"
        ? { text: big, headers: { "content-length": String(big.length) } }
        : req.url === "/ok"
          ? { text: "é".repeat(1000) }
          : { text: big, headers: { "transfer-encoding": "chunked" } },
    );
    const client = createHttpClient({ resolver: testResolver({}), maxResponseBytes: 100_000 });
    for (const path of ["/declared", "/chunked"]) {
      const err = await client.request({ method: "GET", url: `${peer.url}${path}` }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SluiceError);
      expect((err as SluiceError).message).toMatch(/larger than 100000 bytes/);
    }
    const ok = await client.request({ method: "GET", url: `${peer.url}/ok` });
    expect(ok.text).toBe("é".repeat(1000));
  });
});
