/**
 * The simulator's market model: pure and deterministic for a seed. No I/O and no clock
 * reads: callers pass times in (`advanceTo(clock.now())`), so tests can move time.
 *
 * - Auctions are a state machine stepped once per generation (`generationSeconds`):
 *   expiries, BIN purchases, bids, new listings. State after generation k depends only
 *   on the seed, the start time and k (catch-up gaps longer than `maxCatchUpGenerations`
 *   are compressed, see `advanceTo`).
 * - The bazaar, election and backfilled sales are random-access functions of time
 *   (hashed noise), so any instant can be computed without replaying history and a
 *   backfill joins the live data seamlessly.
 */
import {
  AUCTION_ITEMS,
  BAZAAR_PRODUCTS,
  ENCHANTS_BY_NAME,
  ITEM_ENCHANTS,
  REFORGES,
  TIERS,
  resourceItems,
} from '../gamedata/builtin/catalog.ts';
import type { AuctionItemDef, BazaarProductDef, Tier } from '../gamedata/builtin/catalog.ts';
import { buildItemTemplate, petExpForLevel } from './items.ts';
import type { ItemSpec, ItemTemplate, TimestampForm } from './items.ts';
import { NoiseLayer, Rng, WeightedTable, hash32, hashUnit, valueNoise } from './rng.ts';
import { invalidateAuction } from './wire.ts';
import { ELECTION_OPEN_PROGRESS, SKYBLOCK_YEAR_MS, termProgress, termStart, termYearAt } from '../domain/skyblock-calendar.ts';
import type {
  AuctionsEndedResponse,
  BazaarLevel,
  BazaarProduct,
  BazaarResponse,
  ElectionCandidate,
  ElectionPerk,
  ElectionResponse,
  HypixelAuction,
  HypixelEndedAuction,
  ItemsResponse,
} from './wire.ts';

/** Options of the market model. */
export interface MarketOptions {
  seed: number;
  /** target number of active auctions */
  auctions: number;
  /** optional cap on the number of bazaar products */
  products?: number;
  /** seconds between auction generations (upstream: 60) */
  generationSeconds: number;
  /** seconds between bazaar snapshots (upstream: ~10–20) */
  bazaarSeconds: number;
  /** length of a SkyBlock year in ms (upstream: 124 h); the mayor changes once per year */
  yearMs?: number;
  /** longer gaps are compressed instead of replayed (default 30) */
  maxCatchUpGenerations?: number;
  /** sold auctions per day in backfilled history; absent: 2 % of the book per minute */
  salesPerDay?: number;
}

/** One consistent auction generation, as served on all pages at once. */
export interface AuctionGeneration {
  /** generation number since the market started (0 = initial population) */
  index: number;
  /** the generation's `lastUpdated` (ms) */
  lastUpdated: number;
  /** active auctions, newest first (page 0 holds the newest, as in the 2022 sample) */
  auctions: readonly HypixelAuction[];
  /** sales of roughly the last 60 s */
  ended: readonly HypixelEndedAuction[];
}

/** Backfill tuning: recent data at full detail, older data coarser so 7 days take seconds. */
export interface BackfillOptions {
  /** bazaar snapshot step for the detailed window (default: bazaarSeconds) */
  stepSeconds?: number;
  /** order-book levels per side in the detailed window (default 30) */
  bookDepth?: number;
  /** the detailed window reaches this far back from `toMs` (default 1 h; Infinity = all) */
  detailedMs?: number;
  /** bazaar step before the detailed window (default 300 s) */
  coarseStepSeconds?: number;
  /** order-book levels per side before the detailed window (default 5) */
  coarseBookDepth?: number;
  /** each yielded batch covers at most this much time (default 60 s; small batches keep GC cheap) */
  batchMs?: number;
  /** include bazaar snapshots (default true) */
  bazaar?: boolean;
  /** include auctions_ended responses, one per 60 s (default true) */
  auctionsEnded?: boolean;
  /** include the election resource as it stood at the end of each SkyBlock year in the window (default true) */
  elections?: boolean;
}

/** A slice of history in time order; consumers ingest it like live responses. */
export interface BackfillBatch {
  fromMs: number;
  toMs: number;
  bazaar: BazaarResponse[];
  auctionsEnded: AuctionsEndedResponse[];
  /** the election resource one last time before each mayor change in the batch (the term's last sighting) */
  elections: ElectionResponse[];
}

export { SKYBLOCK_EPOCH_MS, SKYBLOCK_YEAR_MS } from '../domain/skyblock-calendar.ts';

const PAGE_WINDOW_MS = 60_000;
const HOUR = 3_600_000;
/** Listing durations; `active` is the share among active auctions in the 2022 sample. */
const DURATIONS: ReadonlyArray<{ ms: number; active: number }> = [
  { ms: 1 * HOUR, active: 3 },
  { ms: 6 * HOUR, active: 67 },
  { ms: 12 * HOUR, active: 3 },
  { ms: 24 * HOUR, active: 6 },
  { ms: 48 * HOUR, active: 17 },
  { ms: 14 * 24 * HOUR, active: 2 },
];
const ACTIVE_DURATION_WEIGHTS = DURATIONS.map((d) => d.active);

/** Chance per minute that a BIN listing at `ratio` × its fair value sells: cheap listings sell fast; overpriced ones sit. */
function binSalesPerMinute(ratio: number): number {
  return Math.min(0.5, Math.max(0.0005, 0.025 * Math.exp(-4 * (ratio - 1))));
}
// New listings: weight ∝ active share / duration, so the steady-state book matches the sample.
const NEW_DURATION_WEIGHTS = DURATIONS.map((d) => d.active / (d.ms / HOUR));

interface Variant {
  template: ItemTemplate;
  /** fair value of this copy */
  value: number;
  category: string;
}

interface Player {
  uuid: string;
  profile: string;
  coop: string[];
}

/** Per-product constants and noise caches of the bazaar model. */
interface BzState {
  def: BazaarProductDef;
  keyHash: number;
  liquid: boolean;
  thinDepth: number;
  levelSize: number;
  baseSpread: number;
  sellWeekFactor: number;
  slow: NoiseLayer;
  medium: NoiseLayer;
  fast: NoiseLayer;
  spread: NoiseLayer;
  weekly: NoiseLayer;
}

interface Live {
  a: HypixelAuction;
  value: number;
  seller: number;
}

/** The simulated market. */
export class Market {
  readonly options: Required<Omit<MarketOptions, 'products' | 'salesPerDay'>> & { products?: number; salesPerDay?: number };
  /** start instant aligned to the generation grid */
  readonly startMs: number;
  readonly products: readonly BazaarProductDef[];

  private readonly genMs: number;
  private readonly bzMs: number;
  private readonly rng: Rng;
  private readonly players: Player[];
  private readonly itemTable: WeightedTable;
  private readonly variants: Array<Variant[] | undefined> = [];
  private readonly bzState: BzState[];
  private active: Live[] = [];
  private recentSales: HypixelEndedAuction[] = [];
  private gen: AuctionGeneration | null = null;
  private genIndex = 0;
  private bazaarCache: { tick: number; value: BazaarResponse } | null = null;
  private lastNow: number;
  /** winning mayor key per SkyBlock year (pure function of seed and year, cached) */
  private readonly mayorByYear = new Map<number, string>();

  constructor(options: MarketOptions, startMs: number) {
    if (!(options.generationSeconds > 0) || !(options.bazaarSeconds > 0)) throw new Error('generationSeconds and bazaarSeconds must be > 0');
    this.options = {
      maxCatchUpGenerations: 30,
      yearMs: SKYBLOCK_YEAR_MS,
      ...options,
    };
    this.genMs = Math.round(options.generationSeconds * 1000);
    this.bzMs = Math.round(options.bazaarSeconds * 1000);
    this.startMs = Math.floor(startMs / this.genMs) * this.genMs;
    this.lastNow = this.startMs;
    this.rng = new Rng(options.seed, 'market');
    const nPlayers = Math.min(50_000, Math.max(64, Math.ceil(options.auctions / 3)));
    const prng = new Rng(options.seed, 'players');
    this.players = [];
    for (let i = 0; i < nPlayers; i++) {
      const uuid = prng.hex32();
      const coop = [uuid];
      // Most profiles are solo; some coops of 2–5 (the sample shows up to 8).
      if (prng.chance(0.3)) for (let j = prng.int(1, 4); j > 0; j--) coop.push(prng.hex32());
      this.players.push({ uuid, profile: prng.hex32(), coop });
    }
    this.itemTable = new WeightedTable(AUCTION_ITEMS.map((d) => d.weight ?? 1));
    this.products = selectProducts(options.products);
    this.bzState = this.products.map((def) => {
      const seed = options.seed;
      const keyHash = hash32(seed, def.id);
      return {
        def,
        keyHash,
        liquid: def.weeklyVolume >= 50_000,
        // Thin products (rare books, top gems) show fewer levels, as on the real bazaar.
        thinDepth: Math.round(4 + (22 * Math.log10(Math.max(10, def.weeklyVolume))) / Math.log10(50_000)),
        levelSize: Math.max(1, def.weeklyVolume / 4000),
        baseSpread: 0.003 + 0.6 / Math.pow(def.weeklyVolume, 0.25),
        sellWeekFactor: 0.9 + 0.2 * hashUnit(seed, def.id, 'smw'),
        slow: new NoiseLayer(seed, keyHash, 3 * 24 * HOUR),
        medium: new NoiseLayer(seed, keyHash, 6 * HOUR),
        fast: new NoiseLayer(seed, keyHash, 20 * 60_000),
        spread: new NoiseLayer(seed, keyHash + 1, HOUR),
        weekly: new NoiseLayer(seed, keyHash + 2, 24 * HOUR),
      };
    });
  }

  /** True once the initial book exists (the server answers 503 before). */
  get populated(): boolean {
    return this.gen !== null;
  }

  /** The instant of generation k. */
  generationTime(k: number): number {
    return this.startMs + k * this.genMs;
  }

  /** Builds the initial book at `startMs`. Idempotent. */
  populate(): void {
    if (this.gen) return;
    const t = this.startMs;
    const n = this.options.auctions;
    const list: Live[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const d = DURATIONS[this.rng.weighted(ACTIVE_DURATION_WEIGHTS)]!;
      const age = Math.floor(this.rng.next() * (d.ms - 1000));
      const live = this.createAuction(t - age, d.ms);
      if (!live.a.bin && this.rng.chance(0.65)) {
        const nb = Math.min(44, 1 + Math.floor(-Math.log(1 - this.rng.next()) * 3));
        let ts = live.a.start;
        for (let b = 0; b < nb && ts < t; b++) {
          ts = ts + Math.floor(this.rng.next() * (t - ts));
          if (!this.placeBid(live, ts)) break;
        }
      }
      list[i] = live;
    }
    list.sort((x, y) => x.a.start - y.a.start || (x.a.uuid < y.a.uuid ? -1 : 1));
    this.active = list;
    this.genIndex = 0;
    this.publish(t);
  }

  /**
   * The fair value the model priced each active auction's copy from (its asks scatter around it,
   * docs/valuation.md): ground truth for benches that judge a valuation (bench/underpriced.ts).
   */
  *fairValues(): Generator<[uuid: string, value: number]> {
    for (const live of this.active) yield [live.a.uuid, live.value];
  }

  /**
   * Moves the market forward to `nowMs`: runs every generation boundary passed since the
   * last call. Returns true when a new auction generation was published. Calling it with
   * the same or an earlier time is a cheap no-op. Gaps longer than
   * `maxCatchUpGenerations` are compressed: the skipped span only expires auctions.
   */
  advanceTo(nowMs: number): boolean {
    if (nowMs > this.lastNow) this.lastNow = nowMs;
    if (!this.gen) return false;
    const target = Math.floor((nowMs - this.startMs) / this.genMs);
    if (target <= this.genIndex) return false;
    const max = this.options.maxCatchUpGenerations;
    if (target - this.genIndex > max) {
      const jumpTo = target - max;
      const t = this.generationTime(jumpTo);
      this.active = this.active.filter((l) => l.a.end > t);
      this.recentSales = [];
      this.genIndex = jumpTo;
    }
    while (this.genIndex < target) this.step();
    return true;
  }

  /** The current auction generation. Throws before `populate()`. */
  generation(): AuctionGeneration {
    if (!this.gen) throw new Error('market not populated');
    return this.gen;
  }

  /** `/v2/skyblock/auctions_ended` for the current generation. */
  auctionsEnded(): AuctionsEndedResponse {
    const g = this.generation();
    return { success: true, lastUpdated: g.lastUpdated, auctions: g.ended.slice() };
  }

  /** The bazaar at the latest time passed to `advanceTo` (or the start). */
  bazaar(): BazaarResponse {
    const tick = Math.floor(this.lastNow / this.bzMs);
    if (this.bazaarCache?.tick !== tick) this.bazaarCache = { tick, value: this.bazaarAt(this.lastNow) };
    return this.bazaarCache.value;
  }

  /** The bazaar snapshot in force at `ms` (snapped down to the bazaar grid). Pure. */
  bazaarAt(ms: number, depth = 30): BazaarResponse {
    const tick = Math.floor(ms / this.bzMs);
    const t = tick * this.bzMs;
    const products: Record<string, BazaarProduct> = {};
    const effects = MAYOR_PRICE_EFFECTS[this.mayorKeyAt(t)];
    for (const st of this.bzState) products[st.def.id] = this.bazaarProduct(st, t, tick, depth, 1 + (effects?.[st.def.group] ?? 0));
    return { success: true, lastUpdated: t, products };
  }

  /** `/v2/resources/skyblock/items` (static for a market). */
  /** The uuid of the simulated player at `index` (modulo the player count): who to ask `profiles` about. */
  playerUuid(index: number): string {
    return this.players[((index % this.players.length) + this.players.length) % this.players.length]!.uuid;
  }

  /**
   * `/v2/skyblock/profiles?uuid=`: the profiles the player is a member of (its own, and coops it
   * joined), with deterministic unlocked collection tiers, skill experience and slayer levels per
   * member; `profiles: null` for a player the simulator does not know, as upstream answers.
   */
  profiles(uuid: string): { success: true; profiles: unknown[] | null } {
    if (!this.memberOf) {
      this.memberOf = new Map();
      this.players.forEach((p, i) => {
        for (const member of p.coop) this.memberOf!.set(member, [...(this.memberOf!.get(member) ?? []), i]);
      });
    }
    const owners = this.memberOf.get(uuid.replace(/-/g, '').toLowerCase());
    if (!owners) return { success: true, profiles: null };
    const names = ['Apple', 'Banana', 'Blueberry', 'Coconut', 'Cucumber', 'Grapes', 'Kiwi', 'Lemon', 'Lime', 'Mango', 'Orange', 'Papaya', 'Peach', 'Pear', 'Pineapple', 'Pomegranate', 'Raspberry', 'Strawberry', 'Tomato', 'Watermelon', 'Zucchini'];
    const collections = ['WHEAT', 'CARROT_ITEM', 'POTATO_ITEM', 'PUMPKIN', 'MELON', 'COBBLESTONE', 'COAL', 'IRON_INGOT', 'GOLD_INGOT', 'DIAMOND', 'LOG', 'ROTTEN_FLESH', 'BONE', 'STRING', 'ENDER_PEARL', 'RAW_FISH', 'INK_SACK:3'];
    const member = (id: string) => {
      const rng = new Rng(this.options.seed, 'profile-member', id);
      const tiers = collections.map((c) => `${c}_${rng.int(0, 9)}`);
      const experience = Object.fromEntries(['FARMING', 'MINING', 'COMBAT', 'FORAGING', 'FISHING', 'ENCHANTING', 'ALCHEMY', 'TAMING', 'CARPENTRY'].map((k) => [`SKILL_${k}`, rng.int(0, 50_000_000)]));
      const claimed = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`level_${i + 1}`, true]));
      const bosses = Object.fromEntries(['zombie', 'spider', 'wolf', 'enderman', 'blaze', 'vampire'].map((b) => [b, { claimed_levels: claimed(rng.int(0, 9)) }]));
      return { player_data: { unlocked_coll_tiers: tiers, experience }, slayer: { slayer_bosses: bosses }, mining_core: { experience: rng.int(0, 2_000_000) } };
    };
    const profiles = owners.map((i, n) => {
      const p = this.players[i]!;
      return { profile_id: p.profile, cute_name: names[new Rng(this.options.seed, 'profile-name', p.profile).int(0, names.length - 1)], selected: n === 0, members: Object.fromEntries(p.coop.map((m) => [m, member(m)])) };
    });
    return { success: true, profiles };
  }

  private memberOf: Map<string, number[]> | undefined;

  items(): ItemsResponse {
    return { success: true, lastUpdated: this.startMs, items: resourceItems() };
  }

  /** Key of the mayor in office at `ms` (the winner of the election whose term holds `ms`). */
  mayorKeyAt(ms: number): string {
    const year = termYearAt(ms, this.options.yearMs);
    let key = this.mayorByYear.get(year);
    if (key === undefined) {
      const c = this.electionCandidates(year, Number.POSITIVE_INFINITY);
      key = c.reduce((a, b) => (b.votes > a.votes ? b : a)).key;
      this.mayorByYear.set(year, key);
    }
    return key;
  }

  /** The election resource at the latest time passed to `advanceTo`. */
  election(): ElectionResponse {
    return this.electionAt(this.lastNow);
  }

  /**
   * The election resource at `ms`. The mayor changes when a term starts (Late Spring 27 of the
   * SkyBlock calendar, domain/skyblock-calendar.ts); the next election is open from Late Summer 27.
   */
  electionAt(ms: number): ElectionResponse {
    const yearMs = this.options.yearMs;
    const year = termYearAt(ms, yearMs);
    const into = termProgress(ms, yearMs);
    // The mayor in office won election `year`, which closed when this term began.
    const past = this.electionCandidates(year, Number.POSITIVE_INFINITY);
    const sorted = past.slice().sort((a, b) => b.votes - a.votes);
    const winner = sorted[0]!;
    const runnerUp = sorted[1]!;
    const ministerPerk = runnerUp.perks[hash32(this.options.seed, 'minister', year) % runnerUp.perks.length]!;
    const res: ElectionResponse = {
      success: true,
      lastUpdated: Math.floor(ms / 60_000) * 60_000,
      mayor: {
        key: winner.key,
        name: winner.name,
        perks: winner.perks.map((p) => ({ name: p.name, description: p.description })),
        minister: { key: runnerUp.key, name: runnerUp.name, perk: { name: ministerPerk.name, description: ministerPerk.description } },
        election: { year, candidates: past },
      },
    };
    const openFrom = ELECTION_OPEN_PROGRESS;
    if (into >= openFrom) {
      // Votes accumulate while the election is open.
      const progress = (into - openFrom) / (1 - openFrom);
      res.current = { year: year + 1, candidates: this.electionCandidates(year + 1, progress) };
    }
    return res;
  }

  /**
   * Past history for ingestion: bazaar snapshots and auctions_ended responses between
   * `fromMs` and `toMs`, yielded in time order in small batches so memory stays bounded.
   */
  *backfill(fromMs: number, toMs: number, opts: BackfillOptions = {}): Generator<BackfillBatch> {
    const stepMs = Math.max(1, Math.round((opts.stepSeconds ?? this.options.bazaarSeconds) * 1000));
    const coarseMs = Math.max(stepMs, Math.round((opts.coarseStepSeconds ?? 300) * 1000));
    const depth = opts.bookDepth ?? 30;
    const coarseDepth = opts.coarseBookDepth ?? 5;
    const detailedFrom = toMs - (opts.detailedMs ?? 3_600_000);
    const batchMs = Math.max(1000, opts.batchMs ?? 60_000);
    const wantBz = opts.bazaar ?? true;
    const wantEnded = opts.auctionsEnded ?? true;
    const wantElections = opts.elections ?? true;
    const yearMs = this.options.yearMs;
    const pool = new Map<number, string[]>();

    // Bazaar instants: coarse grid before the detailed window, fine grid inside it (both aligned).
    let nextBz = Math.ceil(fromMs / (fromMs < detailedFrom ? coarseMs : stepMs)) * (fromMs < detailedFrom ? coarseMs : stepMs);
    let nextEnded = Math.ceil(fromMs / PAGE_WINDOW_MS) * PAGE_WINDOW_MS;
    if (nextEnded === fromMs) nextEnded += PAGE_WINDOW_MS; // a window must end after fromMs
    for (let b = fromMs; b < toMs; b += batchMs) {
      const e = Math.min(toMs, b + batchMs);
      const batch: BackfillBatch = { fromMs: b, toMs: e, bazaar: [], auctionsEnded: [], elections: [] };
      if (wantElections) {
        // A mayor change at B (b < B ≤ e): the resource a minute before B is the outgoing term's last sighting.
        for (let k = termYearAt(b, yearMs) + 1; ; k++) {
          const boundary = termStart(k, yearMs);
          if (boundary > e) break;
          if (boundary - 60_000 >= fromMs) batch.elections.push(this.electionAt(boundary - 60_000));
        }
      }
      // Interleaving is not needed: each list is in time order and the batch is a time slice.
      while (nextBz < e) {
        const detailed = nextBz >= detailedFrom;
        if (wantBz) batch.bazaar.push(this.bazaarAt(nextBz, detailed ? depth : coarseDepth));
        const step = detailed ? stepMs : coarseMs;
        let n = nextBz + step;
        if (!detailed && n > detailedFrom) n = Math.ceil(detailedFrom / stepMs) * stepMs;
        nextBz = n;
      }
      while (nextEnded <= e && nextEnded <= toMs) {
        if (wantEnded) batch.auctionsEnded.push(this.endedWindow(nextEnded, pool));
        nextEnded += PAGE_WINDOW_MS;
      }
      yield batch;
    }
  }

  // -------------------------------------------------------------------------
  // Auctions

  private step(): void {
    const k = this.genIndex + 1;
    const t0 = this.generationTime(this.genIndex);
    const t1 = this.generationTime(k);
    const minutes = (t1 - t0) / 60_000;
    const rng = this.rng;
    const sales: HypixelEndedAuction[] = [];
    const survivors: Live[] = [];
    for (const live of this.active) {
      const a = live.a;
      if (a.end <= t1) {
        if (a.bids.length) sales.push(this.sale(live, a.end, a.highest_bid_amount, a.bids[a.bids.length - 1]!.bidder));
        continue;
      }
      const from = Math.max(t0, a.start);
      if (a.bin) {
        const perMinute = binSalesPerMinute(a.starting_bid / live.value);
        if (rng.chance(1 - Math.pow(1 - perMinute, minutes))) {
          const ts = from + 1 + Math.floor(rng.next() * Math.max(1, t1 - from - 1));
          sales.push(this.sale(live, ts, a.starting_bid, this.players[this.otherPlayer(live.seller)]!.uuid));
          continue;
        }
      } else {
        const left = a.end - t1;
        const perMinute = left < HOUR ? 0.08 : 0.02;
        if (rng.chance(1 - Math.pow(1 - perMinute, minutes))) {
          const last = a.bids.length ? a.bids[a.bids.length - 1]!.timestamp : from;
          const lo = Math.max(from, last);
          this.placeBid(live, lo + 1 + Math.floor(rng.next() * Math.max(1, t1 - lo - 1)));
        }
      }
      survivors.push(live);
    }
    // New listings: ~3 % of the book per minute in steady state: half a fixed flow, half
    // replacing what left, which also pulls the book back towards its target size.
    const target = this.options.auctions;
    const fresh = Math.max(0, Math.round(target * 0.015 * minutes * rng.logNormal(0.15) + (target - survivors.length) * 0.5));
    const added: Live[] = [];
    for (let i = 0; i < fresh; i++) {
      const d = DURATIONS[rng.weighted(NEW_DURATION_WEIGHTS)]!;
      added.push(this.createAuction(t0 + 1 + Math.floor(rng.next() * (t1 - t0 - 1)), d.ms));
    }
    added.sort((x, y) => x.a.start - y.a.start);
    this.active = survivors.concat(added);
    sales.sort((x, y) => x.timestamp - y.timestamp);
    this.recentSales = this.recentSales.filter((s) => s.timestamp > t1 - PAGE_WINDOW_MS).concat(sales);
    this.genIndex = k;
    this.publish(t1);
  }

  private publish(t: number): void {
    const auctions: HypixelAuction[] = new Array(this.active.length);
    for (let i = 0, n = this.active.length; i < n; i++) auctions[i] = this.active[n - 1 - i]!.a;
    this.gen = {
      index: this.genIndex,
      lastUpdated: t,
      auctions,
      ended: this.recentSales.filter((s) => s.timestamp > t - PAGE_WINDOW_MS && s.timestamp <= t),
    };
  }

  private otherPlayer(not: number): number {
    const n = this.players.length;
    const i = Math.floor(this.rng.next() * (n - 1));
    return i >= not ? i + 1 : i;
  }

  private sale(live: Live, ts: number, price: number, buyer: string): HypixelEndedAuction {
    const seller = this.players[live.seller]!;
    return {
      auction_id: live.a.uuid,
      seller: seller.uuid,
      seller_profile: seller.profile,
      buyer,
      timestamp: ts,
      price,
      bin: live.a.bin,
      item_bytes: live.a.item_bytes,
    };
  }

  /** Places the next bid (+15 % over the last, as the game requires); false if no bidder would pay it. */
  private placeBid(live: Live, ts: number): boolean {
    const a = live.a;
    const last = a.bids[a.bids.length - 1];
    const amount = last ? Math.ceil(last.amount * 1.15) : a.starting_bid;
    if (amount > live.value * 1.25) return false;
    let bi = this.otherPlayer(live.seller);
    if (last && this.players[bi]!.uuid === last.bidder) bi = this.otherPlayer(live.seller);
    const bidder = this.players[bi]!;
    a.bids.push({ auction_id: a.uuid, bidder: bidder.uuid, profile_id: bidder.profile, amount, timestamp: ts });
    a.highest_bid_amount = amount;
    a.last_updated = ts;
    invalidateAuction(a);
    return true;
  }

  private createAuction(start: number, durationMs: number): Live {
    const rng = this.rng;
    const variants = this.variantsOf(this.itemTable.pick(rng));
    const v = variants[Math.floor(rng.next() * variants.length)]!;
    const sellerIdx = Math.floor(rng.next() * this.players.length);
    const seller = this.players[sellerIdx]!;
    const uuid = rng.hex32();
    const itemUuid = rng.hex32();
    const created = start - Math.floor(rng.next() * 400 * 24 * HOUR) - 60_000;
    const bin = rng.chance(0.8);
    // BIN asks scatter around value; a few are bargains (flips) or far overpriced.
    let price: number;
    if (bin) {
      const r = rng.next();
      const f = r < 0.06 ? 0.55 + rng.next() * 0.3 : r > 0.9 ? 1.4 + rng.next() : rng.logNormal(0.15);
      price = v.value * f;
    } else {
      price = v.value * (0.3 + rng.next() * 0.6);
    }
    const a: HypixelAuction = {
      uuid,
      auctioneer: seller.uuid,
      profile_id: seller.profile,
      coop: seller.coop,
      start,
      end: start + durationMs,
      item_name: v.template.itemName,
      item_lore: v.template.itemLore,
      extra: v.template.extra,
      category: v.category,
      tier: v.template.tier,
      starting_bid: nicePrice(price),
      item_bytes: v.template.instantiate(itemUuid, created),
      claimed: false,
      claimed_bidders: [],
      highest_bid_amount: 0,
      last_updated: start,
      bin,
      bids: [],
    };
    if (v.template.hasUuid) a.item_uuid = itemUuid;
    return { a, value: v.value, seller: sellerIdx };
  }

  /** A small deterministic pool of item variants per definition (templates are reused). */
  private variantsOf(defIndex: number): Variant[] {
    let list = this.variants[defIndex];
    if (!list) {
      const def = AUCTION_ITEMS[defIndex]!;
      const key = `${def.key}|${def.tier}`;
      const n = def.kind === 'plain' || def.kind === 'stack' || def.kind === 'potion' || def.kind === 'book' ? 2 : 6;
      list = [];
      for (let i = 0; i < n; i++) {
        const { spec, value } = makeVariant(def, new Rng(this.options.seed, 'variant', key, i));
        list.push({ template: buildItemTemplate(spec), value, category: def.category });
      }
      this.variants[defIndex] = list;
    }
    return list;
  }

  /** One auctions_ended response for the 60 s ending at `end`, random-access by window. */
  private endedWindow(end: number, pool: Map<number, string[]>): AuctionsEndedResponse {
    const w = end / PAGE_WINDOW_MS;
    const rng = new Rng(this.options.seed, 'ended', w);
    // Sales per minute: SIM_SALES_PER_DAY's share of a day, else scaled with the book (about 2 % of it).
    const perMinute = this.options.salesPerDay !== undefined ? this.options.salesPerDay / 1440 : this.options.auctions * 0.02;
    const mean = Math.max(1, perMinute) * (1 + 0.3 * valueNoise(this.options.seed, 'sales', end, 6 * HOUR));
    const count = Math.max(0, Math.round(mean + Math.sqrt(mean) * rng.normal()));
    const auctions: HypixelEndedAuction[] = [];
    // Listing starts from a stream of their own: the sales themselves stay what they were.
    const starts = new Rng(this.options.seed, 'ended-start', w);
    for (let i = 0; i < count; i++) {
      const di = this.itemTable.pick(rng);
      const variants = this.variantsOf(di);
      const vi = Math.floor(rng.next() * variants.length);
      const v = variants[vi]!;
      // Backfilled copies come from a small pool per variant, so some item uuids resell (like real flips).
      const pk = di * 16 + vi;
      let copies = pool.get(pk);
      if (!copies) {
        copies = [];
        pool.set(pk, copies);
      }
      const ci = Math.floor(rng.next() * 4);
      let bytes = copies[ci];
      if (bytes === undefined) {
        const cr = new Rng(this.options.seed, 'copy', pk, ci);
        bytes = v.template.instantiate(cr.hex32(), end - 30 * 24 * HOUR - Math.floor(cr.next() * 300 * 24 * HOUR));
        copies[ci] = bytes;
      }
      const s = Math.floor(rng.next() * this.players.length);
      const seller = this.players[s]!;
      const buyer = this.players[(s + 1 + Math.floor(rng.next() * (this.players.length - 1))) % this.players.length]!;
      const timestamp = end - PAGE_WINDOW_MS + 1 + Math.floor(rng.next() * (PAGE_WINDOW_MS - 1));
      const price = nicePrice(v.value * rng.logNormal(0.15));
      const bin = rng.chance(0.85);
      auctions.push({
        auction_id: rng.hex32(),
        seller: seller.uuid,
        seller_profile: seller.profile,
        buyer: buyer.uuid,
        timestamp,
        price,
        bin,
        item_bytes: bytes,
        start: timestamp - this.listedFor(starts, bin, price / v.value),
      });
    }
    auctions.sort((x, y) => x.timestamp - y.timestamp);
    return { success: true, lastUpdated: end, auctions };
  }

  /**
   * How long a backfilled sale was listed, by the live market's model: an auction with bids
   * sells when its listing ends; a BIN after an exponential wait at its price's sell rate,
   * within its listing's duration.
   */
  private listedFor(rng: Rng, bin: boolean, ratio: number): number {
    const duration = DURATIONS[rng.weighted(NEW_DURATION_WEIGHTS)]!.ms;
    if (!bin) return duration;
    const minutes = -Math.log(1 - rng.next()) / binSalesPerMinute(ratio);
    return Math.max(1_000, Math.min(duration, Math.round(minutes * 60_000)));
  }

  // -------------------------------------------------------------------------
  // Bazaar

  private bazaarProduct(st: BzState, t: number, tick: number, depth: number, mayorFactor = 1): BazaarProduct {
    const p = st.def;
    // Mean-reverting walk: slow, medium and fast noise layers around the fair price, shifted by the mayor's perks.
    const drift = 0.1 * st.slow.at(t) + 0.04 * st.medium.at(t) + 0.015 * st.fast.at(t);
    const mid = p.fairPrice * Math.exp(drift) * mayorFactor;
    const spread = st.baseSpread * (1 + 0.3 * st.spread.at(t));
    const bid = Math.max(0.1, round1(mid * (1 - spread / 2)));
    const ask = Math.max(round1(bid + 0.1), round1(mid * (1 + spread / 2)));
    const gapScale = mid * spread * 0.12;
    const sell = this.side(Rng.fast(st.keyHash, tick, 1), st, bid, -1, gapScale, depth);
    const buy = this.side(Rng.fast(st.keyHash, tick, 2), st, ask, 1, gapScale, depth);
    const weekly = p.weeklyVolume * (1 + 0.25 * st.weekly.at(t));
    return {
      product_id: p.id,
      sell_summary: sell.levels,
      buy_summary: buy.levels,
      quick_status: {
        productId: p.id,
        sellPrice: sell.price,
        sellVolume: sell.volume,
        sellMovingWeek: Math.round(weekly * st.sellWeekFactor),
        sellOrders: sell.orders,
        buyPrice: buy.price,
        buyVolume: buy.volume,
        buyMovingWeek: Math.round(weekly),
        buyOrders: buy.orders,
      },
    };
  }

  /**
   * One side of a book. Totals (volume, orders) come from the model, not from summing
   * levels, so a shallow backfill snapshot reports the same quick_status as a full one:
   * levels are drawn in a fixed order and only as many as needed are generated.
   */
  private side(rng: Rng, st: BzState, best: number, dir: 1 | -1, gapScale: number, depth: number): { levels: BazaarLevel[]; volume: number; orders: number; price: number } {
    const n = st.liquid ? 30 : Math.max(2, Math.min(30, st.thinDepth + rng.int(0, 3)));
    const hidden = st.liquid ? 0.2 + rng.next() * 3 : 0.15 + rng.next() * 0.3;
    const volume = Math.round(st.levelSize * n * 1.65 * (1 + hidden));
    const orders = Math.max(n, Math.round(n * 2.5 * (1 + hidden)));
    const need = Math.max(1, volume * 0.02);
    const levels: BazaarLevel[] = [];
    let price = best;
    let sum = 0;
    let orderSum = 0;
    let cost = 0;
    let taken = 0;
    for (let i = 0; i < n; i++) {
      if (i >= depth && taken >= need) break;
      if (i > 0) {
        price = round1(price + dir * Math.max(0.1, round1(gapScale * -Math.log(1 - rng.next()))));
        if (price < 0.1) break;
      }
      // Keep one item/order in reserve for each later level so the totals always cover the book.
      const left = n - i - 1;
      const amount = Math.max(1, Math.min(volume - sum - left, Math.round(st.levelSize * Math.exp(rng.roughNormal()))));
      const ord = Math.max(1, Math.min(amount, orders - orderSum - left, 1 + Math.floor(rng.next() * Math.min(8, 1 + amount / Math.max(1, st.levelSize / 2)))));
      sum += amount;
      orderSum += ord;
      if (taken < need) {
        const take = Math.min(amount, need - taken);
        cost += take * price;
        taken += take;
      }
      if (i < depth) levels.push({ amount, pricePerUnit: price, orders: ord });
    }
    return { levels, volume, orders, price: taken > 0 ? cost / taken : 0 };
  }

  private electionCandidates(year: number, progress: number): ElectionCandidate[] {
    const seed = this.options.seed;
    // Five candidates, popular mayors standing more often (weighted sampling without replacement).
    const order = MAYORS.map((m, i) => ({ m, r: Math.pow(hashUnit(seed, 'mayor', year, i), 1 / (MAYOR_POPULARITY[m.key] ?? 1)) }))
      .sort((a, b) => b.r - a.r)
      .slice(0, 5);
    return order.map(({ m }, i) => {
      const nPerks = 2 + (hash32(seed, 'perks', year, m.key) % (m.perks.length - 1));
      const perks: ElectionPerk[] = m.perks.slice(0, Math.min(m.perks.length, nPerks)).map((p) => ({ name: p[0], description: p[1] }));
      // Popular mayors win more often, so terms of the same mayor recur (as in the game).
      const full = Math.round((20_000 + (hash32(seed, 'votes', year, i) % 180_000)) * (MAYOR_POPULARITY[m.key] ?? 1));
      const votes = Number.isFinite(progress) ? Math.round(full * Math.min(1, Math.max(0, progress))) : full;
      return { key: m.key, name: m.name, perks, votes };
    });
  }
}

/** Rounds an ask to 3 significant digits, as players tend to. */
export function nicePrice(p: number): number {
  if (p < 100) return Math.max(1, Math.round(p));
  const mag = Math.pow(10, Math.floor(Math.log10(p)) - 2);
  return Math.round(p / mag) * mag;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

/**
 * Upstream's quick_status price: the amount-weighted average price of the best orders
 * that together make up 2 % of the side's total volume (at least one item).
 */
export function topTwoPercentPrice(levels: readonly BazaarLevel[], totalVolume: number): number {
  if (levels.length === 0) return 0;
  let need = Math.max(1, totalVolume * 0.02);
  let cost = 0;
  let taken = 0;
  for (const l of levels) {
    const take = Math.min(l.amount, need);
    cost += take * l.pricePerUnit;
    taken += take;
    need -= take;
    if (need <= 0) break;
  }
  return taken > 0 ? cost / taken : 0;
}

/** Picks `cap` products spread over all groups (round-robin) so a small cap still covers every kind. */
function selectProducts(cap: number | undefined): readonly BazaarProductDef[] {
  if (cap === undefined || cap >= BAZAAR_PRODUCTS.length) return BAZAAR_PRODUCTS;
  const groups = new Map<string, BazaarProductDef[]>();
  for (const p of BAZAAR_PRODUCTS) {
    const g = groups.get(p.group) ?? [];
    g.push(p);
    groups.set(p.group, g);
  }
  const lists = [...groups.values()];
  const out: BazaarProductDef[] = [];
  for (let i = 0; out.length < cap; i++) {
    let any = false;
    for (const l of lists) {
      const p = l[i];
      if (p && out.length < cap) {
        out.push(p);
        any = true;
      }
    }
    if (!any) break;
  }
  return out;
}

/** Dresses one copy of an item: enchants, reforge, stars, gems, pets' level and so on. */
function makeVariant(def: AuctionItemDef, rng: Rng): { spec: ItemSpec; value: number } {
  const tsForm: TimestampForm = rng.chance(0.5) ? 'string' : 'long';
  const spec: ItemSpec = { def, count: 1, tier: def.tier, hasUuid: true, timestampForm: tsForm };
  let value = def.fairPrice;
  switch (def.kind) {
    case 'weapon':
    case 'armor': {
      const slot = def.kind === 'armor' ? 'armor' : def.itemClass === 'BOW' ? 'bow' : 'weapon';
      const pool = ITEM_ENCHANTS[slot];
      const enchantments: Record<string, number> = {};
      let ultimate = false;
      for (const [name, lo, hi] of pool) {
        const isUlt = name.startsWith('ultimate_');
        if (isUlt && ultimate) continue;
        if (rng.chance(isUlt ? 0.35 : 0.55)) {
          enchantments[name] = rng.int(lo, hi);
          if (isUlt) ultimate = true;
        }
      }
      if (Object.keys(enchantments).length) spec.enchantments = enchantments;
      // Extra value of the enchants: a fraction of their book prices.
      for (const [name, level] of Object.entries(enchantments)) {
        const e = ENCHANTS_BY_NAME.get(name);
        if (e && level > e.maxBazaar - 1) value += e.basePrice * Math.pow(2, level - e.minBazaar) * 0.5;
      }
      if (rng.chance(0.6)) spec.modifier = rng.pick(REFORGES[slot]);
      if (rng.chance(0.4)) {
        spec.hotPotatoCount = rng.chance(0.6) ? 10 : rng.int(11, 15);
        // Books add a bit more than they cost on the bazaar, so upgrade flips exist.
        value += 1_200_000 + (spec.hotPotatoCount - 10) * 1_400_000;
      }
      if (def.dungeon && rng.chance(0.6)) {
        spec.upgradeLevel = rng.int(1, 5);
        value *= 1 + spec.upgradeLevel * 0.03;
      }
      if (def.fairPrice > 2_000_000 && rng.chance(0.45)) {
        spec.rarityUpgrades = 1;
        spec.tier = bumpTier(def.tier);
        // A recombobulated item sells for a little more than item + Recombobulator 3000 (upgrade flips).
        value += 8_500_000;
      }
      if (def.gemSlots?.length && rng.chance(0.5)) {
        const gems: Record<string, string> = {};
        for (const s of def.gemSlots) if (rng.chance(0.7)) gems[s] = rng.pick(['FINE', 'FLAWLESS', 'PERFECT']);
        if (Object.keys(gems).length) {
          spec.gems = gems;
          value += Object.keys(gems).length * 2_000_000;
        }
      }
      if (def.attributes?.length) {
        const a1 = rng.pick(def.attributes);
        let a2 = rng.pick(def.attributes);
        if (a2 === a1) a2 = def.attributes[(def.attributes.indexOf(a1) + 1) % def.attributes.length]!;
        const l1 = rng.int(1, 10);
        const l2 = rng.int(1, 10);
        spec.attributes = { [a1]: l1, [a2]: l2 };
        value *= 0.4 + (Math.pow(2, l1) + Math.pow(2, l2)) / 400;
      }
      if (slot !== 'armor' && rng.chance(0.1)) spec.runes = { [rng.pick(['MUSIC', 'BITE', 'HEARTS', 'SPARKLING'])]: rng.int(1, 3) };
      break;
    }
    case 'accessory':
      if (rng.chance(0.5)) spec.modifier = rng.pick(REFORGES.accessory);
      if (def.fairPrice > 2_000_000 && rng.chance(0.35)) {
        spec.rarityUpgrades = 1;
        spec.tier = bumpTier(def.tier);
        value += 8_500_000;
      }
      break;
    case 'pet': {
      const r = rng.next();
      const level = r < 0.35 ? 1 : r < 0.8 ? 100 : rng.int(2, 99);
      const heldItem = rng.chance(0.4) ? rng.pick(['PET_ITEM_TIER_BOOST', 'PET_ITEM_EXP_SHARE', 'PET_ITEM_TEXTBOOK', 'MINOS_RELIC', 'DWARF_TURTLE_SHELMET', 'PET_ITEM_QUICK_CLAW']) : undefined;
      spec.pet = { exp: petExpForLevel(level, def.tier) + (level < 100 ? rng.int(0, 50) : rng.int(0, 5_000_000)), level, candyUsed: rng.chance(0.1) ? rng.int(1, 10) : 0, ...(heldItem ? { heldItem } : {}) };
      value *= level === 1 ? 0.35 : level === 100 ? 1 : 0.35 + (0.6 * level) / 100;
      if (heldItem === 'PET_ITEM_TIER_BOOST') value += 80_000_000;
      if (rng.chance(0.3)) spec.hasUuid = false;
      break;
    }
    case 'rune': {
      const level = rng.int(1, 3);
      spec.runes = { [def.runeType ?? 'MUSIC']: level };
      spec.hasUuid = false;
      spec.timestampForm = 'none';
      value *= Math.pow(2.5, level - 1);
      break;
    }
    case 'potion':
      spec.hasUuid = false;
      spec.timestampForm = 'none';
      break;
    case 'book':
      spec.enchantments = { [def.enchant?.name ?? 'sharpness']: def.enchant?.level ?? 1 };
      spec.hasUuid = rng.chance(0.3);
      if (!spec.hasUuid) spec.timestampForm = 'none';
      break;
    case 'stack':
      spec.count = rng.pick([1, 4, 16, 32, 64]);
      spec.hasUuid = false;
      spec.timestampForm = 'none';
      value *= spec.count;
      break;
    case 'plain':
      break;
  }
  return { spec, value: Math.max(1, Math.round(value)) };
}

function bumpTier(t: Tier): Tier {
  const i = TIERS.indexOf(t);
  return TIERS[Math.min(TIERS.length - 1, i + 1)] ?? t;
}

/**
 * How a mayor moves bazaar prices in the simulator (relative change of the fair price of every
 * product in a group while that mayor is in office): perks that raise a skill's drops add supply,
 * so those products get cheaper. Small on purpose; documented in docs/flips.md (mayor flips).
 */
export const MAYOR_PRICE_EFFECTS: Readonly<Record<string, Partial<Record<BazaarProductDef['group'], number>>>> = {
  farming: { farming: -0.12, greenhouse: -0.12 },
  mining: { mining: -0.12, gemstones: -0.1 },
  fishing: { fishing: -0.12 },
  slayer: { combat: -0.1 },
  dungeons: { essence: -0.1 },
};

/** Vote multipliers: some mayors are elected far more often than others. */
const MAYOR_POPULARITY: Readonly<Record<string, number>> = {
  mythological: 4,
  farming: 4,
  dungeons: 3,
  mining: 3,
  slayer: 3,
  fishing: 1.5,
  economist: 1,
  events: 0.6,
  barry: 0.3,
};

const MAYORS: ReadonlyArray<{ key: string; name: string; perks: ReadonlyArray<[string, string]> }> = [
  { key: 'economist', name: 'Diaz', perks: [['Shopping Spree', 'Increase daily NPC buy limits by 10x.'], ['Stock Exchange', 'The Bazaar has more stock.'], ['Long Term Investment', 'Simulated perk text.'], ['Volume Trading', 'Simulated perk text.']] },
  { key: 'farming', name: 'Finnegan', perks: [['Farming Simulator', 'There is a 25% chance for Mathematical Hoes to count twice.'], ['Pelt-pocalypse', 'Obtain 1.5x more pelts from trapping.'], ['GOATed', 'Jacob\'s Farming Contest brackets include more players.'], ['Blooming Business', 'Simulated perk text.']] },
  { key: 'fishing', name: 'Marina', perks: [['Fishing Festival', 'Start a special fishing event every month.'], ['Luck of the Sea 2.0', 'Gain +15 Sea Creature Chance.'], ['Double Trouble', 'Double Hook Chance is increased.'], ['Fishing XP Buff', 'Gain 50% more Fishing XP.']] },
  { key: 'mining', name: 'Cole', perks: [['Mining Fiesta', 'Schedules a mining event.'], ['Prospection', 'Mining minions work 25% faster.'], ['Mining XP Buff', 'Gain 60% more Mining XP.'], ['Molten Forge', 'Decrease forge time by 25%.']] },
  { key: 'mythological', name: 'Diana', perks: [['Mythological Ritual', 'Griffin burrows appear in the Hub.'], ['Lucky!', 'Gain +25 Pet Luck.'], ['Pet XP Buff', 'Gain 35% more pet XP.'], ['Sharing is Caring', 'Simulated perk text.']] },
  { key: 'slayer', name: 'Aatrox', perks: [['Slashed Pricing', 'Slayer quests are half price.'], ['Slayer XP Buff', 'Earn 25% more Slayer XP.'], ['Pathfinder', 'Rare slayer drops are more common.'], ['SLASHED Pricing', 'Simulated perk text.']] },
  { key: 'dungeons', name: 'Paul', perks: [['Marauder', 'Dungeon reward chests are 20% cheaper.'], ['EZPZ', 'Gain 10 bonus score in Dungeons.'], ['Benediction', 'Blessings are 25% stronger.'], ['Simulated Perk', 'Simulated perk text.']] },
  { key: 'events', name: 'Foxy', perks: [['Sweet Benevolence', 'Earn 30% more candy and gifts.'], ['A Time for Giving', 'Event gifts appear more often.'], ['Chivalrous Carnival', 'A carnival comes to town.'], ['Extra Event', 'Schedules an extra event.']] },
  { key: 'barry', name: 'Barry', perks: [['Simulated Bill', 'Simulated perk text.'], ['Simulated Law', 'Simulated perk text.'], ['Simulated Act', 'Simulated perk text.']] },
];
