/**
 * The cold-sweep decode workers: a worker's answer for a real page is exactly what the
 * ingest thread computes itself, bad records come back counted as invalid or undecodable
 * (never a crash), and closing the pool stops its threads (the next use starts them again).
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { DecodePool, type RecordRanges } from '../../../src/ingest/decode-pool.ts';
import { scanAuctionPage } from '../../../src/ingest/page-scan.ts';
import { prepareAuctionRecord, type PreparedRecord } from '../../../src/ingest/prepare-auction.ts';
import { realGeneration } from '../../helpers/fixtures.ts';

const pool = new DecodePool(1, (err) => assert.fail(`decode pool error: ${String(err)}`));
after(() => pool.close());

/** Waits (bounded) for a worker to be ready and take the records. */
async function decodeInWorker(input: RecordRanges): Promise<PreparedRecord[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = pool.tryDecode(input);
    if (answer) return answer;
    assert.ok(Date.now() < deadline, 'a decode worker became ready');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function inline(body: Buffer, ranges: Array<{ from: number; to: number }>): PreparedRecord[] {
  return ranges.map((r) => prepareAuctionRecord(body.toString('utf8', r.from, r.to)));
}

it('decodes real pages in a worker exactly as the ingest thread does', async () => {
  for (const page of realGeneration(Date.UTC(2026, 10, 22))) {
    const body = Buffer.from(JSON.stringify(page));
    const scanned = scanAuctionPage(body).auctions!;
    const fromWorker = await decodeInWorker({ body, ranges: scanned });
    assert.equal(fromWorker.length, 1000);
    assert.ok(fromWorker.every((r) => r.kind === 'ok'));
    assert.deepEqual(fromWorker, inline(body, [...scanned]));
    // The page itself is untouched (only a copy travels to the worker).
    assert.equal(scanned[0]!.text().slice(0, 9), '{"uuid":"');
  }
});

it('returns bad records as invalid or undecodable, in order, without failing the page', async () => {
  const [page] = realGeneration(Date.UTC(2026, 10, 22));
  const good = page!.auctions.slice(0, 3);
  const records = [
    JSON.stringify(good[0]),
    '{"uuid": "broken json',
    JSON.stringify({ ...good[1], uuid: 42 }),
    JSON.stringify({ ...good[2], item_bytes: Buffer.from('plain text, not gzip').toString('base64') }),
    JSON.stringify({ ...good[2], item_bytes: 'H4sIAAAAAAAAAP//not-really-gzip' }),
  ];
  // Records at offsets that do not start at 0, separated by filler, as inside a page.
  let text = 'xx';
  const ranges: Array<{ from: number; to: number }> = [];
  for (const record of records) {
    const from = Buffer.byteLength(text);
    text += record;
    ranges.push({ from, to: Buffer.byteLength(text) });
    text += ',\n';
  }
  const body = Buffer.from(text);
  const fromWorker = await decodeInWorker({ body, ranges });
  assert.deepEqual(
    fromWorker.map((r) => r.kind),
    ['ok', 'invalid', 'invalid', 'undecodable', 'undecodable'],
  );
  assert.deepEqual(fromWorker, inline(body, ranges));
});

it('stops its workers on close and starts them again on the next use', async () => {
  const [page] = realGeneration(Date.UTC(2026, 10, 22));
  const body = Buffer.from(JSON.stringify(page));
  const ranges = scanAuctionPage(body).auctions!.slice(0, 10);
  await decodeInWorker({ body, ranges });
  await pool.close();
  assert.equal(pool.tryDecode({ body, ranges }), undefined, 'no worker right after close');
  assert.equal((await decodeInWorker({ body, ranges })).length, 10);
});
