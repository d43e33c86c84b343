/**
 * What a proxied upload (POST /api/data/proxy) is, judged by its JSON structure: the
 * upstream responses the mod can fetch on a player's behalf. Pure: no I/O.
 */
export const PROXY_KINDS = ['auctions_page', 'player_auctions', 'auctions_ended', 'bazaar', 'profiles'] as const;
export type ProxyKind = (typeof PROXY_KINDS)[number];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function allObjects(v: unknown, check: (o: Record<string, unknown>) => boolean): boolean {
  return Array.isArray(v) && v.every((e) => isObject(e) && check(e));
}

/**
 * - `auctions_page`: /v2/skyblock/auctions (success, page, totalPages, auctions[] with uuid and item_bytes)
 * - `player_auctions`: /v2/skyblock/auction?player= (success, auctions[] with uuid and auctioneer, no page)
 * - `auctions_ended`: /v2/skyblock/auctions_ended (success, auctions[] with auction_id, buyer and price)
 * - `bazaar`: /v2/skyblock/bazaar (success, products object)
 * - `profiles`: /v2/skyblock/profiles (success, profiles[] with profile_id)
 */
export function classifyUpload(body: unknown): ProxyKind | undefined {
  if (!isObject(body) || body['success'] !== true) return undefined;
  const auctions = body['auctions'];
  if (Array.isArray(auctions)) {
    if (typeof body['page'] === 'number' && typeof body['totalPages'] === 'number') {
      return allObjects(auctions, (a) => typeof a['uuid'] === 'string' && typeof a['item_bytes'] === 'string') ? 'auctions_page' : undefined;
    }
    if (allObjects(auctions, (a) => typeof a['auction_id'] === 'string' && typeof a['price'] === 'number' && typeof a['buyer'] === 'string')) {
      return 'auctions_ended';
    }
    if (allObjects(auctions, (a) => typeof a['uuid'] === 'string' && typeof a['auctioneer'] === 'string')) return 'player_auctions';
    return undefined;
  }
  if (isObject(body['products'])) return 'bazaar';
  if (allObjects(body['profiles'], (p) => typeof p['profile_id'] === 'string')) return 'profiles';
  return undefined;
}

/**
 * Largest inflated size of each kind. Real responses are far smaller (an auctions page of
 * 1,000 auctions is ~1.9 MB, a player's auctions a few KB), so an upload over its kind's cap
 * is refused before it is read further (see UploadScanner.possibleKinds).
 */
export const PROXY_KIND_MAX_BYTES: Readonly<Record<ProxyKind, number>> = {
  auctions_page: 4 * 1024 * 1024,
  player_auctions: 1024 * 1024,
  auctions_ended: 4 * 1024 * 1024,
  bazaar: 8 * 1024 * 1024,
  profiles: 16 * 1024 * 1024,
};

/** Nesting deeper than this is refused (upstream responses nest ~6 levels). */
export const UPLOAD_MAX_DEPTH = 64;

/** The upload is not JSON (`malformed`), or nests deeper than UPLOAD_MAX_DEPTH (`too_deep`). */
export class UploadScanError extends Error {
  constructor(
    readonly reason: 'malformed' | 'too_deep',
    message: string,
  ) {
    super(message);
    this.name = 'UploadScanError';
  }
}

// Value types as recorded per key (0: not seen).
const STR = 1, NUM = 2, TRUE = 3, OTHER_LITERAL = 4, OBJ = 5, ARR = 6;
// Keys the classification looks at, by id.
const KEY_IDS = new Map(
  ['success', 'page', 'totalPages', 'auctions', 'products', 'profiles', 'uuid', 'item_bytes', 'auction_id', 'price', 'buyer', 'auctioneer', 'profile_id'].map((k, i) => [k, i]),
);
const K_SUCCESS = 0, K_PAGE = 1, K_TOTAL_PAGES = 2, K_AUCTIONS = 3, K_PRODUCTS = 4, K_PROFILES = 5;
const K_UUID = 6, K_ITEM_BYTES = 7, K_AUCTION_ID = 8, K_PRICE = 9, K_BUYER = 10, K_AUCTIONEER = 11, K_PROFILE_ID = 12;
const KEY_COUNT = 13, KEY_MAX_BYTES = 16;
// What a container is to the classification.
const R_OTHER = 0, R_TOP = 1, R_AUCTIONS = 2, R_PROFILES = 3, R_AUCTION = 4, R_PROFILE = 5;
// Scanner states.
const S_VALUE = 0, S_ARR_FIRST = 1, S_OBJ_FIRST = 2, S_OBJ_KEY = 3, S_COLON = 4, S_AFTER = 5, S_DONE = 6;
const S_STR = 7, S_ESC = 8, S_HEX = 9, S_LIT = 10;
const N_MINUS = 11, N_ZERO = 12, N_INT = 13, N_DOT = 14, N_FRAC = 15, N_E = 16, N_ESIGN = 17, N_EXP = 18;
const LITERALS: Record<number, [Uint8Array, number]> = {
  0x74: [new TextEncoder().encode('true'), TRUE],
  0x66: [new TextEncoder().encode('false'), OTHER_LITERAL],
  0x6e: [new TextEncoder().encode('null'), OTHER_LITERAL],
};
const ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9 };

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

/**
 * Validates and classifies an upload's JSON as it streams in, chunk by chunk, without building
 * it: memory stays constant whatever the input (a 16 MB `[[],[],…]` is a few counters, where
 * JSON.parse built millions of arrays), and the caller yields between chunks. It accepts what
 * JSON.parse accepts (UTF-8 bytes; a leading BOM skipped, as TextDecoder did) and classifies as
 * `classifyUpload(JSON.parse(text))` does, except that an upload repeating one of the top-level
 * keys the classification reads is no kind at all (upstream never sends one).
 *
 * `possibleKinds()` narrows while reading, so the caller can stop early: nothing possible any
 * more (e.g. the top level is an array) or past every possible kind's size cap.
 */
export class UploadScanner {
  private state = S_VALUE;
  private depth = 0;
  private readonly containers = new Uint8Array(UPLOAD_MAX_DEPTH + 1); // OBJ or ARR
  private readonly roles = new Uint8Array(UPLOAD_MAX_DEPTH + 1);
  private readonly keys = new Int8Array(UPLOAD_MAX_DEPTH + 1);
  private readonly top = new Uint8Array(KEY_COUNT);
  private readonly element = new Uint8Array(KEY_COUNT);
  private topIsObject = false;
  private started = false;
  private hopeless = false;
  private allPage = true;
  private allEnded = true;
  private allPlayer = true;
  private allProfiles = true;
  // the string being read: a key (collected when the classification may need it) or a value
  private isKey = false;
  private collect = false;
  private readonly key = new Uint8Array(KEY_MAX_BYTES);
  private keyLength = 0;
  private hex = 0;
  private hexDigits = 0;
  private literal: Uint8Array = LITERALS[0x74]![0];
  private literalType = 0;
  private literalAt = 0;

  /** Reads the next bytes; throws UploadScanError when they cannot continue JSON. */
  write(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    if (!this.started) {
      this.started = true;
      if (n >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    while (i < n) {
      const b = chunk[i]!;
      switch (this.state) {
        case S_STR: {
          // The hot loop: plain string bytes until a quote, a backslash or a control character.
          if (!this.collect) {
            while (i < n) {
              const c = chunk[i]!;
              if (c === 0x22 || c === 0x5c || c < 0x20) break;
              i++;
            }
            if (i === n) return;
          }
          const c = chunk[i]!;
          if (c === 0x22) this.endString();
          else if (c === 0x5c) this.state = S_ESC;
          else if (c < 0x20) throw malformed('a control character inside a string');
          else this.keyByte(c);
          i++;
          continue;
        }
        case S_ESC: {
          if (b === 0x75) {
            this.state = S_HEX;
            this.hex = 0;
            this.hexDigits = 0;
          } else {
            const decoded = ESCAPES[b];
            if (decoded === undefined) throw malformed('an invalid escape in a string');
            this.keyByte(decoded);
            this.state = S_STR;
          }
          i++;
          continue;
        }
        case S_HEX: {
          const v = hexValue(b);
          if (v < 0) throw malformed('an invalid \\u escape');
          this.hex = this.hex * 16 + v;
          if (++this.hexDigits === 4) {
            // Only ASCII keys matter; any other character makes the key one we do not read.
            this.keyByte(this.hex < 0x80 ? this.hex : 0x100);
            this.state = S_STR;
          }
          i++;
          continue;
        }
        case S_LIT: {
          if (b !== this.literal[this.literalAt]) throw malformed('an invalid literal');
          i++;
          if (++this.literalAt === this.literal.length) this.scalar(this.literalType);
          continue;
        }
        case N_MINUS:
        case N_ZERO:
        case N_INT:
        case N_DOT:
        case N_FRAC:
        case N_E:
        case N_ESIGN:
        case N_EXP: {
          if (this.numberByte(b)) i++;
          continue; // the byte that ended the number is read again as what follows it
        }
        default:
          break;
      }
      if (isSpace(b)) {
        i++;
        continue;
      }
      switch (this.state) {
        case S_VALUE:
        case S_ARR_FIRST:
          if (this.state === S_ARR_FIRST && b === 0x5d) this.close(ARR);
          else this.startValue(b);
          break;
        case S_OBJ_FIRST:
        case S_OBJ_KEY:
          if (b === 0x22) this.startString(true);
          else if (b === 0x7d && this.state === S_OBJ_FIRST) this.close(OBJ);
          else throw malformed('expected a property name');
          break;
        case S_COLON:
          if (b !== 0x3a) throw malformed("expected ':'");
          this.state = S_VALUE;
          break;
        case S_AFTER: {
          const container = this.containers[this.depth];
          if (b === 0x2c) this.state = container === OBJ ? S_OBJ_KEY : S_VALUE;
          else if (b === 0x7d && container === OBJ) this.close(OBJ);
          else if (b === 0x5d && container === ARR) this.close(ARR);
          else throw malformed("expected ',' or the end of the container");
          break;
        }
        default:
          throw malformed('unexpected data after the JSON value');
      }
      i++;
    }
  }

  /** Ends the input; throws UploadScanError when it stopped inside the value. */
  end(): void {
    if (this.state >= N_MINUS) this.numberByte(0x20);
    if (this.state !== S_DONE) throw malformed('the JSON ends early');
  }

  /** The kind, once `end()` has accepted the input. */
  kind(): ProxyKind | undefined {
    const top = this.top;
    if (this.hopeless || !this.topIsObject || top[K_SUCCESS] !== TRUE) return undefined;
    if (top[K_AUCTIONS] === ARR) {
      if (top[K_PAGE] === NUM && top[K_TOTAL_PAGES] === NUM) return this.allPage ? 'auctions_page' : undefined;
      if (this.allEnded) return 'auctions_ended';
      return this.allPlayer ? 'player_auctions' : undefined;
    }
    if (top[K_PRODUCTS] === OBJ) return 'bazaar';
    return top[K_PROFILES] === ARR && this.allProfiles ? 'profiles' : undefined;
  }

  /** The kinds the input can still turn out to be, from what has been read so far (none: stop). */
  possibleKinds(): ProxyKind[] {
    const top = this.top;
    if (this.hopeless) return [];
    if (top[K_SUCCESS] !== 0 && top[K_SUCCESS] !== TRUE) return [];
    const out: ProxyKind[] = [];
    const auctions = top[K_AUCTIONS];
    if (auctions === ARR || auctions === 0) {
      const pageNumbers = top[K_PAGE] === NUM && top[K_TOTAL_PAGES] === NUM;
      const pageBad = (top[K_PAGE] !== 0 && top[K_PAGE] !== NUM) || (top[K_TOTAL_PAGES] !== 0 && top[K_TOTAL_PAGES] !== NUM);
      if (this.allPage && !pageBad) out.push('auctions_page');
      if (!pageNumbers && this.allEnded) out.push('auctions_ended');
      if (!pageNumbers && this.allPlayer) out.push('player_auctions');
      if (auctions === ARR) return out;
    }
    const products = top[K_PRODUCTS];
    if (products === OBJ || products === 0) out.push('bazaar');
    if (products === OBJ) return out;
    const profiles = top[K_PROFILES];
    if (profiles === 0 || (profiles === ARR && this.allProfiles)) out.push('profiles');
    return out;
  }

  private startValue(b: number): void {
    if (this.depth === 0 && b !== 0x7b) this.hopeless = true; // only an object can be an upload
    if (b === 0x7b || b === 0x5b) {
      const type = b === 0x7b ? OBJ : ARR;
      const role = this.childRole(type);
      this.record(type);
      if (this.depth === UPLOAD_MAX_DEPTH) throw new UploadScanError('too_deep', `The upload nests deeper than ${UPLOAD_MAX_DEPTH} levels`);
      this.depth++;
      this.containers[this.depth] = type;
      this.roles[this.depth] = role;
      this.keys[this.depth] = -1;
      if (role === R_AUCTION || role === R_PROFILE) this.element.fill(0);
      this.state = type === OBJ ? S_OBJ_FIRST : S_ARR_FIRST;
    } else if (b === 0x22) {
      this.startString(false);
    } else if (b === 0x2d || isDigit(b)) {
      this.state = b === 0x2d ? N_MINUS : b === 0x30 ? N_ZERO : N_INT;
    } else {
      const literal = LITERALS[b];
      if (!literal) throw malformed('expected a value');
      [this.literal, this.literalType] = literal;
      this.literalAt = 1;
      this.state = S_LIT;
    }
  }

  /** What a container starting here is to the classification. */
  private childRole(type: number): number {
    const parent = this.depth === 0 ? -1 : this.roles[this.depth]!;
    const key = this.keys[this.depth]!;
    if (parent === -1) {
      this.topIsObject = type === OBJ;
      return R_TOP;
    }
    if (parent === R_TOP && type === ARR && key === K_AUCTIONS) {
      this.allPage = this.allEnded = this.allPlayer = true;
      return R_AUCTIONS;
    }
    if (parent === R_TOP && type === ARR && key === K_PROFILES) {
      this.allProfiles = true;
      return R_PROFILES;
    }
    if (parent === R_AUCTIONS && type === OBJ) return R_AUCTION;
    if (parent === R_PROFILES && type === OBJ) return R_PROFILE;
    return R_OTHER;
  }

  /** Notes a value of `type` starting (containers) or complete (scalars) in the current container. */
  private record(type: number): void {
    if (this.depth === 0) return;
    const role = this.roles[this.depth];
    const key = this.keys[this.depth]!;
    if (role === R_TOP) {
      if (key < 0) return;
      if (this.top[key] !== 0) this.hopeless = true; // a repeated key: not an upstream response
      this.top[key] = type;
    } else if (role === R_AUCTION || role === R_PROFILE) {
      if (key >= 0) this.element[key] = type;
    } else if (role === R_AUCTIONS && type !== OBJ) {
      this.allPage = this.allEnded = this.allPlayer = false;
    } else if (role === R_PROFILES && type !== OBJ) {
      this.allProfiles = false;
    }
  }

  private scalar(type: number): void {
    this.record(type);
    this.state = this.depth === 0 ? S_DONE : S_AFTER;
  }

  private close(type: number): void {
    if (this.containers[this.depth] !== type) throw malformed('mismatched brackets');
    const role = this.roles[this.depth];
    const e = this.element;
    if (role === R_AUCTION) {
      this.allPage &&= e[K_UUID] === STR && e[K_ITEM_BYTES] === STR;
      this.allEnded &&= e[K_AUCTION_ID] === STR && e[K_PRICE] === NUM && e[K_BUYER] === STR;
      this.allPlayer &&= e[K_UUID] === STR && e[K_AUCTIONEER] === STR;
    } else if (role === R_PROFILE) {
      this.allProfiles &&= e[K_PROFILE_ID] === STR;
    }
    this.depth--;
    this.state = this.depth === 0 ? S_DONE : S_AFTER;
  }

  private startString(isKey: boolean): void {
    this.isKey = isKey;
    const role = this.roles[this.depth];
    this.collect = isKey && (role === R_TOP || role === R_AUCTION || role === R_PROFILE);
    this.keyLength = 0;
    this.state = S_STR;
  }

  private keyByte(b: number): void {
    if (!this.collect) return;
    if (b > 0x7f || this.keyLength === KEY_MAX_BYTES) this.keyLength = KEY_MAX_BYTES + 1;
    else this.key[this.keyLength++] = b;
  }

  private endString(): void {
    if (!this.isKey) return this.scalar(STR);
    let id = -1;
    if (this.collect && this.keyLength <= KEY_MAX_BYTES) id = KEY_IDS.get(String.fromCharCode(...this.key.subarray(0, this.keyLength))) ?? -1;
    this.keys[this.depth] = id;
    this.state = S_COLON;
  }

  /** Reads `b` as part of a number: true when it belonged to it; false when it ended the number. */
  private numberByte(b: number): boolean {
    const digit = isDigit(b);
    switch (this.state) {
      case N_MINUS:
        if (!digit) throw malformed('a number without digits');
        this.state = b === 0x30 ? N_ZERO : N_INT;
        return true;
      case N_ZERO:
      case N_INT:
        if (digit && this.state === N_INT) return true;
        if (b === 0x2e) return (this.state = N_DOT), true;
        if (b === 0x65 || b === 0x45) return (this.state = N_E), true;
        break;
      case N_DOT:
        if (!digit) throw malformed('a number without digits after the point');
        this.state = N_FRAC;
        return true;
      case N_FRAC:
        if (digit) return true;
        if (b === 0x65 || b === 0x45) return (this.state = N_E), true;
        break;
      case N_E:
        if (b === 0x2b || b === 0x2d) return (this.state = N_ESIGN), true;
        if (!digit) throw malformed('a number without exponent digits');
        this.state = N_EXP;
        return true;
      case N_ESIGN:
        if (!digit) throw malformed('a number without exponent digits');
        this.state = N_EXP;
        return true;
      case N_EXP:
        if (digit) return true;
        break;
    }
    this.scalar(NUM);
    return false;
  }
}

function malformed(what: string): UploadScanError {
  return new UploadScanError('malformed', `The upload is not JSON: ${what}`);
}
