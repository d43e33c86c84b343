/**
 * Small seeded PRNG and hashing helpers for the simulator. Written here rather than
 * pulled from npm (e.g. pure-rand) to keep the dependency list unchanged.
 *
 * `Rng` is sfc32 (Chris Doty-Humphrey's Small Fast Counter, public domain), seeded
 * through a 32-bit mixing hash. `hash32` gives random-access randomness: the same
 * parts always give the same number, which lets the bazaar and backfills be computed
 * for any instant without replaying history.
 */

/** Mixes a list of numbers/strings into one 32-bit unsigned integer (murmur3-style finaliser). */
export function hash32(...parts: ReadonlyArray<number | string>): number {
  let h = 0x811c9dc5 | 0;
  for (const p of parts) {
    if (typeof p === 'number') {
      // Split doubles into two 32-bit halves so large epoch-ms values mix fully.
      const lo = p >>> 0;
      const hi = Math.floor(p / 4294967296) >>> 0;
      h = mix(h ^ lo);
      h = mix(h ^ hi);
    } else {
      for (let i = 0; i < p.length; i++) h = Math.imul(h ^ p.charCodeAt(i), 0x01000193);
      h = mix(h ^ p.length);
    }
  }
  return mix(h) >>> 0;
}

function mix(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x | 0;
}

/** hash32 mapped to [0, 1). */
export function hashUnit(...parts: ReadonlyArray<number | string>): number {
  return hash32(...parts) / 4294967296;
}


/** A deterministic random stream (sfc32). */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(...seed: ReadonlyArray<number | string>) {
    if (seed.length === 0) {
      // Used by Rng.fast: same field order so every instance shares one hidden class.
      this.a = 0;
      this.b = 0;
      this.c = 0;
      this.d = 1;
      return;
    }
    this.a = hash32(...seed, 'a');
    this.b = hash32(...seed, 'b');
    this.c = hash32(...seed, 'c');
    this.d = 1;
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  /** A cheaper stream for hot paths (bazaar levels): seeded from three numbers, no string hashing. */
  static fast(x: number, y: number, z: number): Rng {
    const r = new Rng();
    r.a = mix(x ^ 0x9e3779b9) | 0;
    r.b = mix((y | 0) ^ mix(r.a)) | 0;
    r.c = mix((z | 0) ^ mix(r.b ^ 0x632be5ab)) | 0;
    r.d = 1;
    for (let i = 0; i < 6; i++) r.nextU32();
    return r;
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const v = items[Math.floor(this.next() * items.length)];
    if (v === undefined) throw new Error('Rng.pick on an empty array');
    return v;
  }

  /** Index chosen by weights (need not sum to 1). */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Approximately normal (Irwin–Hall of 3 uniforms, unit variance): cheaper than Box-Muller. */
  roughNormal(): number {
    return (this.next() + this.next() + this.next() - 1.5) * 2;
  }

  /** exp(N(0, sigma)): a multiplicative noise factor with median 1. */
  logNormal(sigma: number): number {
    return Math.exp(sigma * this.normal());
  }

  /** 32 lowercase hex characters (a uuid without dashes, version-4 bits set). */
  hex32(): string {
    const w0 = this.nextU32();
    const w1 = this.nextU32();
    const w2 = this.nextU32();
    const w3 = this.nextU32();
    // Version 4 in the 13th digit, variant 10xx in the 17th, as in a random uuid.
    const v1 = ((w1 & 0xffff0fff) | 0x00004000) >>> 0;
    const v2 = ((w2 & 0x3fffffff) | 0x80000000) >>> 0;
    return hex8(w0) + hex8(v1) + hex8(v2) + hex8(w3);
  }
}

function hex8(n: number): string {
  const s = n.toString(16);
  return s.length === 8 ? s : '00000000'.slice(s.length) + s;
}

/** Weighted choice in O(log n) over precomputed cumulative weights. */
export class WeightedTable {
  private readonly cum: Float64Array;
  private readonly total: number;

  constructor(weights: readonly number[]) {
    this.cum = new Float64Array(weights.length);
    let t = 0;
    for (let i = 0; i < weights.length; i++) {
      t += Math.max(0, weights[i] ?? 0);
      this.cum[i] = t;
    }
    this.total = t;
  }

  /** Index drawn with probability proportional to its weight. */
  pick(rng: Rng): number {
    const r = rng.next() * this.total;
    let lo = 0;
    let hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cum[mid] ?? 0) > r) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Inserts dashes into a 32-hex uuid: 8-4-4-4-12. */
export function dashUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Smooth random-access noise in about [-1, 1]: cosine-interpolated hashed knots every `periodMs`. */
export function valueNoise(seed: number, key: number | string, t: number, periodMs: number): number {
  const x = t / periodMs;
  const k = Math.floor(x);
  const f = x - k;
  const a = hashUnit(seed, key, periodMs, k) * 2 - 1;
  const b = hashUnit(seed, key, periodMs, k + 1) * 2 - 1;
  const w = (1 - Math.cos(f * Math.PI)) / 2;
  return a + (b - a) * w;
}

/**
 * valueNoise with its two knots cached: consecutive times mostly share knots, so a
 * backfill evaluates the hash only when a knot boundary is crossed.
 */
export class NoiseLayer {
  private k = Number.NaN;
  private a = 0;
  private b = 0;

  constructor(
    private readonly seed: number,
    private readonly key: number | string,
    private readonly periodMs: number,
  ) {}

  /** Same value as `valueNoise(seed, key, t, periodMs)`. */
  at(t: number): number {
    const x = t / this.periodMs;
    const k = Math.floor(x);
    if (k !== this.k) {
      if (k === this.k + 1) {
        this.a = this.b;
      } else {
        this.a = hashUnit(this.seed, this.key, this.periodMs, k) * 2 - 1;
      }
      this.b = hashUnit(this.seed, this.key, this.periodMs, k + 1) * 2 - 1;
      this.k = k;
    }
    const f = x - k;
    const w = (1 - Math.cos(f * Math.PI)) / 2;
    return this.a + (this.b - this.a) * w;
  }
}
