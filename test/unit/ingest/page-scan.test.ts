import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PageScanError, scanAuctionPage } from '../../../src/ingest/page-scan.ts';
import { realAuctionPageTexts } from '../../helpers/fixtures.ts';

const U1 = 'aa'.repeat(16);
const U2 = 'BB'.repeat(16);

function scan(text: string) {
  return scanAuctionPage(Buffer.from(text, 'utf8'));
}

describe('scanAuctionPage', () => {
  it('reads the envelope and the identity fields of each auction without parsing it', () => {
    const page = {
      success: true,
      page: 3,
      totalPages: 9,
      totalAuctions: 8500,
      lastUpdated: 1700000000000,
      auctions: [
        { uuid: U1, start: 10, last_updated: 20, item_name: 'a "quoted" \\ name {[', bids: [{ a: [1, { b: '}' }] }] },
        { start: 5, uuid: U2, extra: { uuid: 'nested-ignored', last_updated: 99 } },
      ],
      trailer: { nested: [1, 2, { x: null }] },
    };
    const result = scan(JSON.stringify(page, null, 1));
    assert.deepEqual(result.envelope, { success: true, page: 3, totalPages: 9, totalAuctions: 8500, lastUpdated: 1700000000000, trailer: page.trailer });
    assert.equal(result.auctions!.length, 2);
    const [a, b] = result.auctions!;
    assert.deepEqual([a!.uuid, a!.lastUpdated, a!.start], [U1, 20, 10]);
    // upper-case uuids are normalised; nested objects' fields never leak into the auction's
    assert.deepEqual([b!.uuid, b!.lastUpdated, b!.start], [U2.toLowerCase(), null, 5]);
    assert.deepEqual(a!.parse(), page.auctions[0]);
    assert.deepEqual(b!.parse(), page.auctions[1]);
  });

  it('keeps non-object elements and unreadable fields so the caller can count them as invalid', () => {
    const result = scan(`{"auctions":[17,"x",null,{"uuid":"not-hex","last_updated":"12","start":true},{}]}`);
    const auctions = result.auctions!;
    assert.equal(auctions.length, 5);
    assert.deepEqual(auctions.map((a) => a.uuid), [null, null, null, null, null]);
    assert.deepEqual(auctions[3]!.lastUpdated, null); // a string is not a plain number
    assert.deepEqual(auctions[0]!.parse(), 17);
    assert.deepEqual(auctions[4]!.parse(), {});
  });

  it('handles escaped quotes and backslashes at the end of strings', () => {
    const result = scan(`{"auctions":[{"item_lore":"ends with \\\\","uuid":"${U1}","x":"\\"}\\""}]}`);
    assert.equal(result.auctions![0]!.uuid, U1);
    assert.deepEqual(result.auctions![0]!.parse(), { item_lore: 'ends with \\', uuid: U1, x: '"}"' });
  });

  it('returns null auctions when the page has none, and an empty list for []', () => {
    assert.equal(scan('{"success":false,"cause":"Page not found"}').auctions, null);
    assert.deepEqual(scan('{"auctions":[]}').auctions, []);
    assert.deepEqual(scan('{}').envelope, {});
  });

  it('rejects truncated and malformed pages', () => {
    const full = JSON.stringify({ success: true, auctions: [{ uuid: U1, start: 1 }, { uuid: U2, start: 2 }] });
    for (let cut = 1; cut < full.length; cut += 3) {
      assert.throws(() => scan(full.slice(0, cut)), PageScanError, `cut at ${cut}`);
    }
    for (const bad of ['[]', '{"a":1}}', '{"a" 1}', '{"a":1,}x', '{"auctions":[{"uuid":1]}', '{"auctions":[1 2]}', '']) {
      assert.throws(() => scan(bad), PageScanError, bad);
    }
  });

  it('a record with bytes the scan cannot judge fails its own parse, not the page', () => {
    const result = scan(`{"auctions":[{"uuid":"${U1}","start":1,"x":tru},{"uuid":"${U2}","start":2}]}`);
    assert.throws(() => result.auctions![0]!.parse(), SyntaxError);
    assert.deepEqual(result.auctions![1]!.parse(), { uuid: U2, start: 2 });
  });

  it('agrees with JSON.parse on the real 2022 pages', () => {
    const lines = realAuctionPageTexts();
    for (const line of lines) {
      const parsed = JSON.parse(line) as { auctions: Array<{ uuid: string; last_updated?: number; start: number }> };
      const { envelope, auctions } = scanAuctionPage(Buffer.from(line, 'utf8'));
      const { auctions: _, ...rest } = parsed;
      assert.deepEqual(envelope, rest);
      assert.equal(auctions!.length, parsed.auctions.length);
      parsed.auctions.forEach((expected, i) => {
        const got = auctions![i]!;
        assert.equal(got.uuid, expected.uuid.toLowerCase());
        assert.equal(got.lastUpdated, expected.last_updated ?? null);
        assert.equal(got.start, expected.start);
        assert.deepEqual(got.parse(), expected);
      });
    }
  });
});
