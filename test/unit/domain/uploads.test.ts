/**
 * The streaming upload scanner against JSON.parse + classifyUpload: the same verdict (JSON
 * or not, and which kind) for generated documents, upload-shaped ones and broken text, read in
 * chunks cut anywhere.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyUpload, PROXY_KINDS, UploadScanError, UploadScanner, UPLOAD_MAX_DEPTH, type ProxyKind } from '../../../src/domain/uploads.ts';

type Verdict = { json: false } | { json: true; kind: ProxyKind | undefined };

function reference(text: string): Verdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { json: false };
  }
  return { json: true, kind: classifyUpload(parsed) };
}

function scan(bytes: Uint8Array, cuts: number[] = []): Verdict {
  const scanner = new UploadScanner();
  let at = 0;
  try {
    for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b)) {
      scanner.write(bytes.subarray(at, Math.max(at, cut)));
      at = Math.max(at, cut);
    }
    scanner.write(bytes.subarray(at));
    scanner.end();
  } catch (err) {
    if (err instanceof UploadScanError) return { json: false };
    throw err;
  }
  return { json: true, kind: scanner.kind() };
}

const enc = new TextEncoder();
const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);
const auction = fc.record(
  { uuid: fc.oneof(hex32, fc.integer()), item_bytes: fc.oneof(fc.string(), fc.constant(null)), auctioneer: hex32, auction_id: hex32, price: fc.oneof(fc.integer(), fc.string()), buyer: hex32, 'x\\u0079': fc.jsonValue({ maxDepth: 2 }) },
  { requiredKeys: [] },
);
const upload = fc.record(
  {
    success: fc.oneof(fc.constant(true), fc.constant(true), fc.boolean(), fc.constant(null)),
    page: fc.oneof(fc.integer(), fc.string()),
    totalPages: fc.integer(),
    auctions: fc.oneof(fc.array(fc.oneof(auction, auction, fc.jsonValue({ maxDepth: 1 })), { maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })),
    products: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), fc.jsonValue({ maxDepth: 1 })),
    profiles: fc.oneof(fc.array(fc.oneof(fc.record({ profile_id: fc.oneof(fc.string(), fc.integer()) }), fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 }), fc.string()),
    extra: fc.jsonValue({ maxDepth: 3 }),
  },
  { requiredKeys: [] },
);
/** JSON text as a client may write it: spaces anywhere between tokens, escapes in keys. */
function spaced(value: unknown, ws: string): string {
  return JSON.stringify(value, null, ws.length ? ws : undefined).replace(/"success"/g, '"\\u0073uccess"');
}

describe('UploadScanner', () => {
  it('agrees with JSON.parse + classifyUpload on generated documents, in any chunks', () => {
    fc.assert(
      fc.property(fc.oneof(upload, fc.jsonValue({ maxDepth: 6 })), fc.constantFrom('', ' ', '\t', '\n\r '), fc.array(fc.nat(), { maxLength: 6 }), (value, ws, cuts) => {
        const text = spaced(value, ws);
        assert.deepEqual(scan(enc.encode(text), cuts), reference(text), text);
      }),
      { numRuns: 3000 },
    );
  });

  it('reaches every kind', () => {
    const seen = new Set<ProxyKind | undefined>();
    fc.assert(fc.property(upload, (value) => void seen.add(scan(enc.encode(JSON.stringify(value))).json ? (scan(enc.encode(JSON.stringify(value))) as { kind: ProxyKind }).kind : undefined)), { numRuns: 2000 });
    for (const kind of PROXY_KINDS) assert.ok(seen.has(kind), kind);
  });

  it('refuses what JSON.parse refuses: broken and mutated documents', () => {
    const mutated = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.nat(), fc.constantFrom('', ',', ']', '}', '"', '\\', ':', '0', '-', 'e', '.', 'tru', '\u0001', 'x', '{', '[')).map(([v, at, insert]) => {
      const text = JSON.stringify(v);
      const i = at % (text.length + 1);
      return text.slice(0, i) + insert + text.slice(i + (insert === '' ? 1 : 0));
    });
    const numbers = fc.stringMatching(/^-?[0-9]{0,3}(\.[0-9]{0,2})?([eE][+-]?[0-9]{0,2})?$/);
    fc.assert(
      fc.property(fc.oneof(mutated, numbers, fc.string({ maxLength: 12 })), fc.array(fc.nat(), { maxLength: 4 }), (text, cuts) => {
        assert.deepEqual(scan(enc.encode(text), cuts).json, reference(text).json, JSON.stringify(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('stops nesting at the depth cap, and knows early when nothing can match', () => {
    const deep = enc.encode('{"a":' + '['.repeat(UPLOAD_MAX_DEPTH + 1));
    assert.throws(() => new UploadScanner().write(deep), (err: unknown) => err instanceof UploadScanError && err.reason === 'too_deep');
    const array = new UploadScanner();
    array.write(enc.encode('[[],[]'));
    assert.deepEqual(array.possibleKinds(), []);
    const bomb = new UploadScanner();
    bomb.write(enc.encode('{"success":true,"auctions":[[],'));
    assert.deepEqual(bomb.possibleKinds(), []);
    const page = new UploadScanner();
    page.write(enc.encode('{"success":true,"page":0,"totalPages":3,"auctions":[{"uuid":"a","item_bytes":"b"},'));
    assert.deepEqual(page.possibleKinds(), ['auctions_page']);
  });
});
