import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** scrypt cost parameters (N = 2^15, r = 8, p = 1: ~32 MiB and tens of milliseconds per hash). */
const PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;
const SALT_BYTES = 16;
const MAX_MEMORY = 128 * 1024 * 1024;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt base64>$<hash base64>`: parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), key.toString("base64")].join("$");
}

interface ParsedHash {
  params: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const ok = [N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) && N <= 1 << 20 && r <= 32 && p <= 16;
  if (!ok) return null;
  const salt = Buffer.from(parts[4] ?? "", "base64");
  const key = Buffer.from(parts[5] ?? "", "base64");
  if (salt.length === 0 || key.length !== KEY_LENGTH) return null;
  return { params: { N, r, p }, salt, key };
}

let dummyHash: Promise<string> | null = null;

/** Computes the dummy hash ahead of the first login, so even that one takes no extra time. */
export function prepareDummyHash(): void {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  dummyHash.catch(() => undefined);
}

/**
 * Whether `password` matches `stored`, compared in constant time. With `stored` null (unknown user) it still
 * hashes against a dummy, so an unknown username costs the same time as a wrong password.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  prepareDummyHash();
  const parsed = parseHash(stored ?? "") ?? parseHash(await (dummyHash as Promise<string>));
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  const equal = timingSafeEqual(key, parsed.key);
  return equal && stored !== null && parseHash(stored) !== null;
}
