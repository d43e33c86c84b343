/**
 * The real data sets in test/fixtures (see its README.md for sources and licences). This module
 * is the one place that knows their paths; tests and benchmarks read them through it. They ship
 * with the project, so a missing fixture is an error, never a skip.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import * as tar from 'tar';
import { tempDir } from './temp-dir.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
/** Three real responses of Hypixel's auctions endpoint (2022-09-29), one JSON object per line, gzipped. */
const AUCTION_PAGES = new URL('auctions/hypixel-auction-pages-2022-09-29.ndjson.gz', FIXTURES);
/** About 1,100 real decoded items (SkyHelper-Networth's examples/items.json), gzipped. */
const SKYHELPER_ITEMS = new URL('skyhelper/items.json.gz', FIXTURES);
/** The NotEnoughUpdates item repository (items/, constants/, SNAPSHOT) as one archive with a top-level `neu-repo/`. */
const NEU_REPO_ARCHIVE = fileURLToPath(new URL('neu-repo/neu-repo.tar.gz', FIXTURES));

export interface RealAuctionPage {
  success: boolean;
  page: number;
  totalPages: number;
  totalAuctions: number;
  lastUpdated: number;
  auctions: Array<Record<string, unknown> & { uuid: string; start: number; end: number; last_updated: number }>;
}

/** The three real pages as Hypixel sent them, one JSON text each: page 0, page 0 again, page 2. */
export function realAuctionPageTexts(): string[] {
  return gunzipSync(readFileSync(AUCTION_PAGES))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim());
}

/** The three real pages (page 0 twice, page 2), as Hypixel sent them in 2022. */
export function realAuctionPages(): RealAuctionPage[] {
  return realAuctionPageTexts().map((line) => JSON.parse(line) as RealAuctionPage);
}

/**
 * The real pages as one two-page generation whose timestamps are shifted so the
 * newest auction started `now`: page 0, then page 2 as page 1.
 */
export function realGeneration(now: number): RealAuctionPage[] {
  const all = realAuctionPages();
  const first = all.find((p) => p.page === 0)!;
  const second = all.find((p) => p.page === 2)!;
  const shift = now - first.lastUpdated;
  return [first, second].map((p, index) => ({
    ...p,
    page: index,
    totalPages: 2,
    totalAuctions: 2000,
    lastUpdated: first.lastUpdated + shift,
    auctions: p.auctions.map((a) => {
      const bids = (a.bids as Array<Record<string, number>> | undefined) ?? [];
      return {
        ...a,
        start: a.start + shift,
        end: a.end + shift,
        last_updated: a.last_updated + shift,
        bids: bids.map((b) => ({ ...b, timestamp: b.timestamp! + shift })),
      };
    }),
  }));
}

/** SkyHelper's decoded items, grouped by inventory (armor, wardrobe, storage, pets, …). */
export function skyHelperItems(): Record<string, unknown> {
  return JSON.parse(gunzipSync(readFileSync(SKYHELPER_ITEMS)).toString('utf8')) as Record<string, unknown>;
}

let neuPath: string | undefined;

/**
 * The path of the unpacked NEU repository (items/, constants/, SNAPSHOT, LICENSE). Writing its
 * ~8,700 files takes 1-20 s on a busy machine, so the archive is unpacked once per machine, not per
 * test process: into the system temp directory, under a name with the archive's SHA-256 (a changed
 * archive unpacks afresh), through a staging directory renamed in one step so that concurrent test
 * processes never see a half-written copy. The tests only read it.
 */
export function neuRepo(): string {
  if (neuPath) return neuPath;
  const digest = createHash('sha256').update(readFileSync(NEU_REPO_ARCHIVE)).digest('hex').slice(0, 16);
  const target = join(tmpdir(), `skymarket-neu-fixture-${digest}`);
  if (!existsSync(join(target, 'neu-repo', 'SNAPSHOT'))) {
    const staging = tempDir('neu-fixture-staging');
    try {
      tar.x({ file: NEU_REPO_ARCHIVE, cwd: staging.path, sync: true, strict: true });
      renameSync(staging.path, target);
    } catch (err) {
      // Another process may have renamed its copy into place first; anything else is an error.
      if (!existsSync(join(target, 'neu-repo', 'SNAPSHOT'))) throw err;
    } finally {
      staging.remove();
    }
  }
  neuPath = join(target, 'neu-repo');
  return neuPath;
}

/** One parsed JSON file of the NEU repository's constants/, e.g. `neuConstant('pets.json')`. */
export function neuConstant(name: string): unknown {
  return JSON.parse(readFileSync(join(neuRepo(), 'constants', name), 'utf8')) as unknown;
}
