/**
 * Counts the distinct values of one column for node profiles. Exact (a Set) up to EXACT_LIMIT distinct values;
 * beyond that it switches to a HyperLogLog estimate (2^14 registers, standard error ≈ 0.8 %), because a Set of a
 * million strings costs more than the rest of a pipeline's bookkeeping together. No maintained npm package offers
 * HyperLogLog over arbitrary JS values, hence this small implementation.
 *
 * A text longer than LONG_TEXT is told apart by a hash of its length, its first and last HASHED_ENDS characters and
 * HASHED_SAMPLES characters spread between, exact phase included: hashing all of it made 20,001 texts of 60,000
 * characters hold the server's thread for 9 s at the switch to the estimate, and V8 hashes a text past 16,383
 * characters by its length alone, so a Set of long texts of one length compared them one by one (290 s for 20,001).
 * Two long texts that differ only elsewhere count once: a profile's distinct count is a summary, not a check.
 */
const EXACT_LIMIT = 20_000;
const P = 14;
const M = 1 << P;
const ALPHA_MM = (0.7213 / (1 + 1.079 / M)) * M * M;

const LONG_TEXT = 2048;
const HASHED_ENDS = 512;
const HASHED_SAMPLES = 256;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** MurmurHash3's 32-bit finaliser: spreads every input bit over the whole word. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hashValue(v: unknown): number {
  if (typeof v === "number") {
    f64[0] = v;
    return fmix((u32[0]! ^ Math.imul(u32[1]!, 0x9e3779b1)) >>> 0);
  }
  const s = typeof v === "string" ? v : `${typeof v}:${String(v)}`;
  if (s.length > LONG_TEXT) return longTextHash(s);
  let h = 0x811c9dc5; // FNV-1a over UTF-16 code units, then finalised
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix(h >>> 0);
}

/** The hash of a text over LONG_TEXT characters: its length, both ends and samples between (see the class). */
function longTextHash(s: string): number {
  let h = Math.imul(0x811c9dc5 ^ s.length, 0x01000193);
  const mix = (i: number) => (h = Math.imul(h ^ s.charCodeAt(i), 0x01000193));
  for (let i = 0; i < HASHED_ENDS; i++) mix(i);
  for (let i = s.length - HASHED_ENDS; i < s.length; i++) mix(i);
  const step = (s.length - 2 * HASHED_ENDS) / (HASHED_SAMPLES + 1);
  for (let k = 1; k <= HASHED_SAMPLES; k++) mix(HASHED_ENDS + Math.floor(k * step));
  return fmix(h >>> 0);
}

export class DistinctCounter {
  /** Values, but texts over LONG_TEXT characters: those are in exactLong. */
  private exact: Set<unknown> | null = new Set();
  /** Long texts, as their hash: apart from `exact`, where a number is a value. */
  private exactLong: Set<number> | null = new Set();
  private registers: Uint8Array | null = null;

  /** `v` is a primitive (objects are passed as their JSON text). */
  add(v: unknown): void {
    if (this.exact && this.exactLong) {
      if (typeof v === "string" && v.length > LONG_TEXT) this.exactLong.add(longTextHash(v));
      else this.exact.add(v);
      if (this.exact.size + this.exactLong.size > EXACT_LIMIT) this.switchToEstimate();
      return;
    }
    this.addHash(hashValue(v));
  }

  get count(): number {
    if (this.exact && this.exactLong) return this.exact.size + this.exactLong.size;
    const registers = this.registers as Uint8Array;
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < M; i++) {
      const r = registers[i]!;
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    const estimate = ALPHA_MM / sum;
    // small-range correction (linear counting), as in the original paper
    return Math.round(estimate <= 2.5 * M && zeros > 0 ? M * Math.log(M / zeros) : estimate);
  }

  private switchToEstimate(): void {
    const [values, long] = [this.exact as Set<unknown>, this.exactLong as Set<number>];
    this.exact = this.exactLong = null;
    this.registers = new Uint8Array(M);
    for (const v of values) this.addHash(hashValue(v));
    for (const h of long) this.addHash(h);
  }

  private addHash(h: number): void {
    const index = h >>> (32 - P);
    const rest = (h << P) >>> 0;
    const rank = rest === 0 ? 32 - P + 1 : Math.clz32(rest) + 1;
    const registers = this.registers as Uint8Array;
    if (rank > registers[index]!) registers[index] = rank;
  }
}
