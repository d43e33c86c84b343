import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RowColumns, type ChunkRow } from '../../../src/domain/bazaar-chunk.ts';
import { JsonBytes, writeSnapshotRows } from '../../../src/domain/bazaar-export-json.ts';

function written(write: (out: JsonBytes) => void, capacity = 8): string {
  const out = new JsonBytes(capacity);
  write(out);
  return out.done().toString('latin1');
}

/** Numbers through JsonBytes#number, each with room reserved as callers do. */
function printed(values: number[]): string[] {
  return values.map((n) => written((out) => {
    out.reserve(32);
    out.number(n);
  }));
}

let seed = 12345;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

describe('export JSON bytes', () => {
  it('prints every number exactly as String(n)', () => {
    const values = [
      0, -0, 1, -1, 9, 10, 99, 100, 0.1, -0.1, 0.5, 1.1, 10.5, 99.9, 100.1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 0.5, 2 ** 48 / 10 + 0.1,
      Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 53 + 2, 1e21, 1e300, Number.MAX_VALUE, Number.MIN_VALUE, 5e-7, 1e-7,
      0.1 + 0.2, 1 / 3, 123.45, -987.65, 0.05, NaN, Infinity, -Infinity, 5.6e13 + 0.1, 5.7e13 + 0.1, 562949953421.3, 5629499534213.1,
    ];
    for (let i = 0; i < 20_000; i++) {
      values.push(Math.floor(rand() * 2 ** (1 + Math.floor(rand() * 53))) * (rand() < 0.2 ? -1 : 1)); // integers of every size
      values.push(Math.round(rand() * 10 ** (1 + Math.floor(rand() * 15))) / 10 * (rand() < 0.2 ? -1 : 1)); // whole tenths
      values.push((rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20)); // anything
    }
    assert.deepEqual(printed(values), values.map((n) => String(n)));
  });

  it('prints times exactly as Date#toISOString, across days and out of the four-digit years', () => {
    const times = [0, -1, 1, 86_399_999, 86_400_000, Date.UTC(2026, 10, 22, 23, 59, 59, 999), Date.UTC(2026, 10, 23), Date.parse('0000-01-01T00:00:00.000Z'), Date.parse('0000-01-01T00:00:00.000Z') - 1, Date.parse('9999-12-31T23:59:59.999Z'), Date.parse('+010000-01-01T00:00:00.000Z'), -8.64e15, 8.64e15];
    for (let i = 0; i < 5000; i++) times.push(Math.floor(Date.UTC(2026, 0, 1) + rand() * 400 * 86_400_000));
    for (let i = 0; i < 500; i++) times.push(Math.floor((rand() - 0.5) * 2 * 8.64e15));
    // One writer for all: its cached day must follow the times back and forth.
    const out = new JsonBytes(16);
    for (const t of times) {
      out.reserve(32);
      out.isoTime(t);
      out.reserve(1);
      out.write(new Uint8Array([0x7c]));
    }
    assert.deepEqual(out.done().toString('latin1').split('|').slice(0, -1), times.map((t) => new Date(t).toISOString()));
  });

  it('writes snapshot rows as the export template does, growing the buffer as needed', () => {
    const rows: ChunkRow[] = Array.from({ length: 50 }, (_, i) => ({
      ts: Date.UTC(2026, 10, 20, 23, 50) + i * 20_311,
      buy_price: i % 7 === 0 ? 1234.5678 : 1000.5 + i * 0.1,
      sell_price: i % 5 === 0 ? 990 : -0.3,
      buy_volume: 1_234_567 * i,
      sell_volume: 2 ** 52 + i,
      buy_moving_week: i % 3 ? 1e300 : 0,
      sell_moving_week: 87_654_321,
      buy_orders: i,
      sell_orders: 0.5,
      book: null,
    }));
    const columns = new RowColumns(1);
    columns.merge(rows, 0);
    const id = 'ENCHANTED_RAW_SALMON';
    const head = Buffer.from(`{"productId":${JSON.stringify(id)},"timeStamp":"`);
    // What bazaar-export.ts printed per row before (a template string).
    const template = (r: ChunkRow) =>
      `{"productId":${JSON.stringify(id)},"timeStamp":"${new Date(r.ts).toISOString()}","buyPrice":${r.buy_price},"sellPrice":${r.sell_price},"buyVolume":${r.buy_volume},"sellVolume":${r.sell_volume},"buyMovingWeek":${r.buy_moving_week},"sellMovingWeek":${r.sell_moving_week},"buyOrdersCount":${r.buy_orders},"sellOrdersCount":${r.sell_orders},"minBuy":${r.buy_price},"maxBuy":${r.buy_price},"minSell":${r.sell_price},"maxSell":${r.sell_price},"count":1}`;
    assert.equal(written((out) => writeSnapshotRows(out, columns, 0, 50, head, true)), rows.map(template).join(','));
    // Not the first rows of the export: a comma first; a sub-range.
    assert.equal(written((out) => writeSnapshotRows(out, columns, 10, 12, head, false)), `,${template(rows[10]!)},${template(rows[11]!)}`);
    assert.equal(written((out) => writeSnapshotRows(out, columns, 3, 3, head, false)), '');
    const parsed = JSON.parse(`[${written((out) => writeSnapshotRows(out, columns, 0, 50, head, true))}]`) as Array<Record<string, unknown>>;
    assert.equal(parsed.length, 50);
    assert.equal(parsed[7]!.buyPrice, 1234.5678);
  });
});
