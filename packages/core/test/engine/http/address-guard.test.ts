import { describe, expect, it } from "vitest";
import {
  assertAddressAllowed,
  canonicalHost,
  embeddedIPv4s,
  isForbiddenAddress,
} from "../../../src/engine/http/address-guard.js";

describe("address guard", () => {
  it.each([
    "169.254.169.254",
    "169.254.0.1",
    "169.254.255.255",
    "2852039166", // decimal 169.254.169.254
    "0xa9fea9fe", // hex
    "0xa9.0xfe.0xa9.0xfe",
    "0251.0376.0251.0376", // octal
    "169.254.43518", // short form
    "fe80::1",
    "febf:ffff::1",
    "[fe80::abcd]",
    "fd00:ec2::254",
    "::ffff:169.254.169.254",
    "[::ffff:a9fe:a9fe]",
    "::169.254.169.254",
    "64:ff9b::169.254.169.254",
    "100.100.100.200",
    "fe80::1%eth0",
  ])("refuses %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
    expect(() => assertAddressAllowed(address)).toThrow(/link-local or a cloud-metadata address/);
  });

  describe("refuses every IPv6 address embedding a forbidden IPv4 address", () => {
    it.each([
      ["IPv4-mapped ::ffff:0:0/96", "::ffff:a9fe:a9fe"],
      ["IPv4-mapped, dotted", "[::ffff:169.254.1.1]"],
      ["SIIT ::ffff:0:0:0/96", "[::ffff:0:a9fe:a9fe]"],
      ["SIIT, dotted", "::ffff:0:169.254.169.254"],
      ["IPv4-compatible ::/96", "::a9fe:a9fe"],
      ["NAT64 64:ff9b::/96", "[64:ff9b::a9fe:a9fe]"],
      ["NAT64 64:ff9b::/96, Alibaba", "64:ff9b::100.100.100.200"],
      ["NAT64 local-use 64:ff9b:1::/48, IPv4 last", "[64:ff9b:1::a9fe:a9fe]"],
      ["NAT64 local-use, dotted", "64:ff9b:1::169.254.169.254"],
      ["NAT64 local-use with a subnet", "64:ff9b:1:42:7::a9fe:a9fe"],
      ["NAT64 local-use /48 prefix (RFC 6052 bits 48-63, 72-87)", "64:ff9b:1:a9fe:a9:fe00::"],
      ["NAT64 local-use /64 prefix (RFC 6052 bits 72-103)", "64:ff9b:1:0:a9:fea9:fe00:0"],
      ["6to4 2002::/16", "[2002:a9fe:a9fe::]"],
      ["6to4 with subnet and interface", "2002:a9fe:a9fe:1:2:3:4:5"],
      ["6to4, Alibaba", "2002:6464:64c8::1"],
      ["Teredo 2001::/32, obfuscated client", "2001:0:4136:e378:8000:63bf:5601:5601"],
      ["Teredo, obfuscated Alibaba client", "2001::9b9b:9b37"],
      ["Teredo, forbidden server", "2001:0:a9fe:a9fe::1"],
    ])("%s: %s", (_, address) => {
      expect(isForbiddenAddress(address)).toBe(true);
      expect(() => assertAddressAllowed(address)).toThrow(/link-local or a cloud-metadata address/);
    });

    it("extracts the embedded IPv4 address and checks it with the IPv4 rules", () => {
      expect(embeddedIPv4s("2002:a9fe:a9fe::")).toEqual(["169.254.169.254"]);
      expect(embeddedIPv4s("2001:0:4136:e378:8000:63bf:5601:5601")).toEqual(["65.54.227.120", "169.254.169.254"]);
      expect(embeddedIPv4s("::ffff:0:a9fe:a9fe")).toEqual(["169.254.169.254"]);
      expect(embeddedIPv4s("2001:db8::a9fe:a9fe")).toEqual([]);
    });

    it.each([
      "::ffff:10.0.0.5",
      "::ffff:0:127.0.0.1",
      "64:ff9b::808:808",
      "64:ff9b:1::c0a8:10a",
      "2002:c0a8:101::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo client 192.0.2.45
      "2001:db8::a9fe:a9fe", // documentation prefix: no embedding
      "2003:a9fe:a9fe::", // next to 6to4
      "2001:1::5601:5601", // next to Teredo
      "64:ff9b:2::a9fe:a9fe", // next to the local-use prefix
    ])("allows %s (embeds no forbidden IPv4)", (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    });
  });

  it.each([
    "127.0.0.1",
    "::1",
    "10.0.0.5",
    "192.168.1.10",
    "169.253.255.255",
    "169.255.0.1",
    "fec0::1",
    "fd00:ec2::253",
    "8.8.8.8",
    "example.test",
  ])("allows %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
    expect(() => assertAddressAllowed(address)).not.toThrow();
  });

  it("canonicalizes IPv4 spellings and IPv6 brackets", () => {
    expect(canonicalHost("0x7f.1")).toBe("127.0.0.1");
    expect(canonicalHost("[::ffff:169.254.169.254]")).toBe("::ffff:a9fe:a9fe");
    expect(canonicalHost("API.Example.TEST")).toBe("api.example.test");
  });

  it("names the host that resolved to a forbidden address", () => {
    expect(() => assertAddressAllowed("169.254.169.254", "metadata.test")).toThrow(
      /'metadata.test' resolves to 169.254.169.254/,
    );
  });
});
