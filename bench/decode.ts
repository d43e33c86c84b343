/**
 * item_bytes decoding throughput on the real auction fixture (2,000 items):
 * (a) base64 + gunzip alone, (b) plus prismarine-nbt's parseUncompressed,
 * (b') plus prismarine's own `simplify`, (c) skymarket's decodeItemBytes,
 * (d) its single-item fast path. The variants run interleaved in rounds and
 * each reports its median round, so machine noise hits them alike.
 *
 * Standalone: `node --import tsx bench/decode.ts [--quick]`
 */
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import { decodeAuctionItem, decodeItemBytes } from '../src/domain/nbt.ts';
import { realAuctionPages } from '../test/helpers/fixtures.ts';
import { formatNumber } from './lib.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

interface Variant {
  name: string;
  decode: (base64: string) => unknown;
}

const VARIANTS: Variant[] = [
  { name: 'base64 + gunzipSync', decode: (b) => gunzipSync(Buffer.from(b, 'base64')) },
  {
    name: 'base64 + gunzip + prismarine-nbt parseUncompressed',
    decode: (b) => nbt.parseUncompressed(gunzipSync(Buffer.from(b, 'base64'))),
  },
  {
    name: 'base64 + gunzip + prismarine parse + simplify',
    decode: (b) => nbt.simplify(nbt.parseUncompressed(gunzipSync(Buffer.from(b, 'base64')))),
  },
  { name: 'decodeItemBytes (skymarket)', decode: (b) => decodeItemBytes(b) },
  { name: 'decodeAuctionItem (skymarket, single item)', decode: (b) => decodeAuctionItem(b) },
];

/** Distinct `item_bytes` of the fixture's auctions. */
function loadBlobs(): string[] {
  const byUuid = new Map<string, string>();
  for (const page of realAuctionPages()) {
    for (const a of page.auctions) byUuid.set(a.uuid, a.item_bytes as string);
  }
  return [...byUuid.values()];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Items per second of one pass over all blobs. */
function pass(v: Variant, blobs: string[]): number {
  const t0 = process.hrtime.bigint();
  for (const b of blobs) v.decode(b);
  const ns = Number(process.hrtime.bigint() - t0);
  return (blobs.length * 1e9) / ns;
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const blobs = loadBlobs();
  // Warm-up lets V8 optimise every variant before anything is counted.
  for (const v of VARIANTS) for (let i = 0; i < (options.quick ? 1 : 3); i++) pass(v, blobs);

  const rounds = options.quick ? 5 : 31;
  const samples = VARIANTS.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    // Rotate the order so no variant always runs right after a GC-heavy one.
    for (let k = 0; k < VARIANTS.length; k++) {
      const i = (k + r) % VARIANTS.length;
      samples[i]!.push(pass(VARIANTS[i]!, blobs));
    }
  }
  const [gunzip, prismarine, simplify, ours, single] = samples.map(median) as [number, number, number, number, number];
  const names = VARIANTS.map((v) => v.name);
  const note = `${blobs.length} real auction items, median of ${rounds} interleaved passes`;
  return [
    { name: names[0]!, figure: gunzip, unit: 'items/s', notes: note },
    { name: names[1]!, figure: prismarine, unit: 'items/s', ratio: prismarine / gunzip, baseline: names[0]! },
    { name: names[2]!, figure: simplify, unit: 'items/s', ratio: simplify / prismarine, baseline: names[1]! },
    {
      name: names[3]!,
      figure: ours,
      unit: 'items/s',
      ratio: ours / prismarine,
      baseline: names[1]!,
      notes: `${(ours / gunzip).toFixed(2)}x of ${names[0]!}`,
    },
    { name: names[4]!, figure: single, unit: 'items/s', ratio: single / prismarine, baseline: names[1]! },
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const rows = await run({ quick: process.argv.includes('--quick') });
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : `  ${r.ratio.toFixed(2)}x vs ${r.baseline}`;
    console.log(`${r.name.padEnd(52)} ${formatNumber(r.figure).padStart(9)} ${r.unit}${ratio}${r.notes ? `  (${r.notes})` : ''}`);
  }
  console.log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
