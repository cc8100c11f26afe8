import { describe, expect, it } from "vitest";
import { signToken, TOKEN_TTL_SECONDS, verifyToken } from "../../src/auth/tokens.js";

const secret = new Uint8Array(32).fill(7);
const other = new Uint8Array(32).fill(9);
const user = { id: "u-1", username: "ann", role: "editor" as const };
const T0 = 1_800_000_000; // seconds
const at = (seconds: number) => new Date(seconds * 1000);

/** Verified tokens are remembered (tokens.ts): what a remembered token gets must be what a fresh check gives. */
describe("token verification, also of a token verified before", () => {
  it("accepts a token until its expiry and refuses it from then on, the second time too", async () => {
    const token = await signToken(secret, user, T0);
    expect(await verifyToken(secret, token, at(T0 + 10))).toMatchObject({ sub: "u-1", role: "editor" });
    expect(await verifyToken(secret, token, at(T0 + TOKEN_TTL_SECONDS - 1))).toMatchObject({ sub: "u-1" });
    expect(await verifyToken(secret, token, at(T0 + TOKEN_TTL_SECONDS))).toBeNull();
    expect(await verifyToken(secret, token, at(T0 + TOKEN_TTL_SECONDS + 3600))).toBeNull();
  });

  it("refuses an altered token, and a token of another secret, after the genuine one was accepted", async () => {
    const token = await signToken(secret, user, T0);
    expect(await verifyToken(secret, token, at(T0))).not.toBeNull();
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const admin = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), role: "admin" }),
    ).toString("base64url");
    const flipped = signature.slice(0, -2) + (signature.endsWith("A") ? "BA" : "AA");
    // other spellings of the genuine token (jose's base64url decoding skips whitespace) are refused too: each
    // would otherwise be remembered apart, memory any signed-in user could fill
    const spaced = [`${token} `, `${header}.${payload}.${signature.slice(0, 10)} ${signature.slice(10)}`];
    for (const forged of [`${header}.${admin}.${signature}`, `${header}.${payload}.${flipped}`, ...spaced]) {
      expect(await verifyToken(secret, forged, at(T0)), forged).toBeNull();
    }
    // accepted under one secret says nothing about another (a secret rotated on restart)
    expect(await verifyToken(other, token, at(T0))).toBeNull();
    const foreign = await signToken(other, user, T0);
    expect(await verifyToken(other, foreign, at(T0))).not.toBeNull();
    expect(await verifyToken(secret, foreign, at(T0))).toBeNull();
  });

  it("gives claims nobody can change for the next request", async () => {
    const token = await signToken(secret, user, T0);
    const claims = await verifyToken(secret, token, at(T0));
    expect(() => Object.assign(claims as object, { role: "admin" })).toThrow();
    expect((await verifyToken(secret, token, at(T0)))?.role).toBe("editor");
  });
});
