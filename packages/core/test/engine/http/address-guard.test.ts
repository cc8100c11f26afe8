import { describe, expect, it } from "vitest";
import { assertAddressAllowed, canonicalHost, isForbiddenAddress } from "../../../src/engine/http/address-guard.js";

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
  ])("refuses %s", (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
    expect(() => assertAddressAllowed(address)).toThrow(/link-local or a cloud-metadata address/);
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
