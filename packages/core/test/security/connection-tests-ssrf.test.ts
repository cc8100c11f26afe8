/**
 * Attack: an editor stores a connection whose host resolves to the cloud-metadata service and presses "test".
 * Every connection type that opens a network connection (postgres, mysql, http, sftp, s3, generic) must refuse before
 * connecting. The resolver seam stands in for DNS: nothing here sends a packet anywhere but 127.0.0.1.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedNetwork, type ConnectionFields } from "../../src/connectors/connector.js";
import { CONNECTORS } from "../../src/connectors/registry.js";
import type { DnsResolver } from "../../src/engine/http/address-guard.js";

const NETWORK_TYPES = ["postgres", "mysql", "http", "sftp", "s3", "generic"] as const;
type NetworkType = (typeof NETWORK_TYPES)[number];

/** The fields of a connection of `type` whose server is `host:port`. */
function fieldsFor(type: NetworkType, host: string, port: number): ConnectionFields {
  const base: ConnectionFields = {
    conn_id: `${type}-c`,
    type,
    host,
    port,
    schema: "db",
    login: "u",
    password: "pw-secret-1",
    extra: {},
  };
  if (type === "http") return { ...base, host: `http://${host}:${port}` };
  if (type === "s3") {
    return {
      ...base,
      extra: {
        bucket: "b",
        region: "us-east-1",
        endpoint: `http://${host}:${port}`,
        access_key_id: "AK",
        secret_access_key: "SK",
      },
    };
  }
  return base;
}

/** Resolves every name to `address` and counts the questions. */
function resolverTo(address: string): DnsResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (hostname: string) => {
    asked.push(hostname);
    return [{ address, family: net.isIPv6(address) ? 6 : 4 }];
  };
  return Object.assign(resolver, { asked });
}

const neverAsked: DnsResolver = async (hostname) => {
  throw new Error(`the resolver must not be asked for an IP literal (asked for ${hostname})`);
};

const test = (type: NetworkType, fields: ConnectionFields, resolver: DnsResolver) =>
  CONNECTORS[type].test(fields, AbortSignal.timeout(5000), guardedNetwork(resolver));

let listener: net.Server;
let port: number;
let accepted = 0;
beforeAll(async () => {
  // accepts and hangs up: enough to prove where a driver connected
  listener = net.createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  port = (listener.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => listener.close(() => r())));

describe("connection tests connect through the guarded lookup", () => {
  it.each(NETWORK_TYPES)("%s: a name is resolved by the seam, and the driver connects to the answer", async (type) => {
    const resolver = resolverTo("127.0.0.1");
    const before = accepted;
    await test(type, fieldsFor(type, "db.internal.test", port), resolver).catch(() => undefined);
    expect(resolver.asked.some((h) => h.endsWith("db.internal.test"))).toBe(true);
    expect(accepted).toBeGreaterThan(before);
  });
});

describe("connection tests refuse link-local and cloud-metadata addresses", () => {
  const forbidden = [
    "169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "::ffff:169.254.169.254",
    "fd00:ec2::254",
    // IPv6 addresses embedding 169.254.169.254: NAT64 local-use, 6to4, SIIT, Teredo (obfuscated client)
    "64:ff9b:1::a9fe:a9fe",
    "2002:a9fe:a9fe::",
    "::ffff:0:a9fe:a9fe",
    "2001:0:4136:e378:8000:63bf:5601:5601",
  ];
  for (const type of NETWORK_TYPES) {
    it.each(forbidden)(`${type}: a host name resolving to %s is refused before connecting`, async (address) => {
      const resolver = resolverTo(address);
      const before = accepted;
      await expect(test(type, fieldsFor(type, "metadata.attacker.test", 80), resolver)).rejects.toThrow(
        /link-local or a cloud-metadata/,
      );
      expect(resolver.asked.length).toBeGreaterThan(0);
      expect(accepted).toBe(before);
    });

    it.each(["169.254.169.254", "2852039166", "0xa9fea9fe"])(
      `${type}: the IP literal %s is refused without a lookup`,
      async (literal) => {
        await expect(test(type, fieldsFor(type, literal, 80), neverAsked)).rejects.toThrow(
          /link-local or a cloud-metadata/,
        );
      },
    );
  }

  it("s3 without an endpoint (AWS host names) goes through the seam too, and never borrows the server's own credentials", async () => {
    const resolver = resolverTo("169.254.169.254");
    const fields: ConnectionFields = {
      ...fieldsFor("s3", "x", 1),
      extra: { bucket: "b", region: "us-east-1", access_key_id: "AK", secret_access_key: "SK" },
    };
    await expect(test("s3", fields, resolver)).rejects.toThrow(/link-local or a cloud-metadata/);
    expect(resolver.asked.some((h) => h.endsWith("amazonaws.com"))).toBe(true);
    const keyless: ConnectionFields = {
      ...fields,
      login: "",
      password: "",
      extra: { bucket: "b", region: "us-east-1" },
    };
    await expect(test("s3", keyless, resolver)).rejects.toThrow(/needs access_key_id and secret_access_key/);
  });

  it("mysql: extra options cannot swap the guarded socket for a unix socket or another host", async () => {
    const resolver = resolverTo("169.254.169.254");
    const fields = {
      ...fieldsFor("mysql", "db.test", 3306),
      extra: { socketPath: "/var/run/mysqld/mysqld.sock", host: "metadata.test", stream: "x" },
    };
    await expect(test("mysql", fields, resolver)).rejects.toThrow(/link-local or a cloud-metadata/);
    expect(resolver.asked).toEqual(["metadata.test"]);
  });

  it("postgres: a unix socket asked for through extra options (?host=/path) is refused: connections go over TCP", async () => {
    const fields = { ...fieldsFor("postgres", "db.test", 5432), extra: { host: "/var/run/postgresql" } };
    await expect(test("postgres", fields, neverAsked)).rejects.toThrow(/over TCP/);
  });
});
