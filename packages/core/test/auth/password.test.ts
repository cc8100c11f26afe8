import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../../src/auth/password.js";

describe("password hashing", () => {
  it("hashes with scrypt and a per-user salt, and verifies", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("correct horse");
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batter", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("never accepts an unknown user or a malformed stored hash", async () => {
    expect(await verifyPassword("anything at all", null)).toBe(false);
    for (const stored of ["", "plain", "scrypt$1$1$1$$", "scrypt$99999999$8$1$c2FsdA==$aGFzaA=="]) {
      expect(await verifyPassword("anything at all", stored)).toBe(false);
    }
  });
});
