/**
 * Reverse NPC flips from NPC shop contents the mod uploaded: parsing untrusted upload bodies
 * (pure), and the flip engine reading the stored uploads on both backends.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { encodeBook } from '../../../src/domain/bazaar-book.ts';
import { NPC_SHOP_UPLOAD_KIND, npcOffersFromUploads, cleanNpcName } from '../../../src/domain/flips/npc.ts';
import { FlipEngine } from '../../../src/market/flips.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const coins = (amount: number) => [{ tag: 'SKYBLOCK_COIN', amount }];

describe('NPC shop offers from uploads (pure)', () => {
  test('valid offers kept, malformed bodies and offers skipped, repeats counted once', () => {
    const good = JSON.stringify({ npcName: 'Zed', offers: [{ itemTag: 'ZZ_ORE', count: 2, costs: coins(100) }, { itemTag: 'bad tag', count: 1, costs: coins(1) }, { itemTag: 'ZZ_ORE', count: 1, costs: [{ tag: 'SKYBLOCK_COIN', amount: -5 }] }] });
    const bodies = [good, good, 'not json', 'null', JSON.stringify({ npcName: 5, offers: [] }), JSON.stringify({ npcName: 'Y', offers: [{ itemTag: 'ZZ_ORE', count: 0, costs: coins(1) }, { itemTag: 'ZZ_ORE', count: 1, costs: [] }] })];
    const offers = npcOffersFromUploads(bodies.map((body, i) => ({ body, uploader: `mod:p${i}` })));
    assert.deepEqual(offers, [{ npcName: 'Zed', itemTag: 'ZZ_ORE', count: 2, costs: coins(100) }]);
  });

  test('an offer needs the quorum of distinct uploaders reporting exactly it', () => {
    const offer = (price: number) => JSON.stringify({ npcName: 'Zed', offers: [{ itemTag: 'ZZ_ORE', count: 1, costs: coins(price) }] });
    // one player uploading the same offer many times is still one voice
    assert.deepEqual(npcOffersFromUploads([offer(10), offer(10), offer(10)].map((body) => ({ body, uploader: 'mod:liar' }))), []);
    // two players disagreeing on the price: neither offer reaches the quorum
    assert.deepEqual(npcOffersFromUploads([{ body: offer(10), uploader: 'mod:a' }, { body: offer(12), uploader: 'mod:b' }]), []);
    const agreed = npcOffersFromUploads([{ body: offer(10), uploader: 'mod:a' }, { body: offer(12), uploader: 'mod:b' }, { body: offer(12), uploader: 'mod:c' }]);
    assert.deepEqual(agreed.map((o) => o.costs[0]!.amount), [12]);
    assert.equal(npcOffersFromUploads([{ body: offer(10), uploader: 'mod:a' }], 1).length, 1, 'quorum 1 trusts one player');
  });
});

describe('NPC names from uploads (issue 45 item 9)', () => {
  test('markup, formatting codes and control characters are stripped; nothing readable is refused', () => {
    assert.equal(cleanNpcName('§6Elizabeth'), 'Elizabeth');
    assert.equal(cleanNpcName('<img src=x onerror=alert(1)>Eliza<b>beth</b>'), 'Elizabeth');
    assert.equal(cleanNpcName('  Bea\u0000 the \u202eBee  '), 'Bea the Bee');
    assert.equal(cleanNpcName('x'.repeat(100))!.length, 40);
    assert.equal(cleanNpcName('<script></script>§c'), undefined);
  });
});

describeEachBackend('reverse NPC flips from mod uploads', (fixture) => {
  it('two accounts cannot plant a fake flip: prices cross-checked against NEU, unverified ones capped, names cleaned (issue 45 item 9)', async () => {
    const { store } = fixture();
    const product = (id: string, sell: number) => ({
      product_id: id, ts: NOW, buy_price: sell * 1.02, sell_price: sell, buy_volume: 100_000, sell_volume: 100_000, buy_moving_week: 168_000, sell_moving_week: 168_000, buy_orders: 5, sell_orders: 5,
      book: encodeBook({ buyOrders: [{ pricePerUnit: sell, amount: 100_000, orders: 5 }], sellOffers: [{ pricePerUnit: sell * 1.02, amount: 100_000, orders: 5 }] }),
    });
    // STRING: NEU's Combat Merchant sells it for 10 coins; BOOSTER_COOKIE: no NEU shop sells it.
    await store.bazaar.insertSnapshot([product('BOOSTER_COOKIE', 2_600_000), product('STRING', 16)], { name: 'bazaar', lastUpdated: NOW, storedAt: NOW, records: 2, source: 'simulator' });
    const upload = async (id: string, uploader: string, npcName: string, itemTag: string, price: number) => {
      const body = JSON.stringify({ npcName, offers: [{ itemTag, count: 1, costs: coins(price) }] });
      await store.dataUploads.add({ id, requestId: uploader, kind: NPC_SHOP_UPLOAD_KIND, bytes: body.length, body, receivedAt: NOW });
    };
    const markup = '<img src=x onerror=alert(1)>§cElizabeth';
    for (const who of ['mod:first', 'mod:second']) {
      await upload(`${who}:cookie`, who, markup, 'BOOSTER_COOKIE', 2);
      await upload(`${who}:string`, who, markup, 'STRING', 1);
      await upload(`${who}:string-real`, who, 'Bob <i>the</i> Merchant', 'STRING', 12);
    }
    const engine = new FlipEngine(store, new ManualClock(NOW), undefined, { pollMs: 0 });
    await engine.refresh(true);
    const flips = engine.bazaar!.reverseNpc;
    assert.equal(flips.find((f) => f.itemId === 'BOOSTER_COOKIE'), undefined, 'an unverified offer promising 1,300,000x is not shown');
    const string = flips.find((f) => f.itemId === 'STRING');
    assert.ok(string, 'the NEU offer (10 coins) still makes its flip');
    assert.equal(string.npcBuyPrice, 10, 'the 1-coin upload was refused: under half of NEU\'s price');
    for (const f of flips) assert.doesNotMatch(f.npcName, /[<>§]/);
  });

  it('an uploaded shop offer makes a flip; without it there is none', async () => {
    const { store } = fixture();
    // ZZ_ORE sells into buy orders at 99 on the bazaar; no NEU shop sells it.
    const book = encodeBook({ buyOrders: [{ pricePerUnit: 99, amount: 100_000, orders: 5 }], sellOffers: [{ pricePerUnit: 101, amount: 100_000, orders: 5 }] });
    await store.bazaar.insertSnapshot(
      [{ product_id: 'ZZ_ORE', ts: NOW, buy_price: 101, sell_price: 99, buy_volume: 100_000, sell_volume: 100_000, buy_moving_week: 168_000, sell_moving_week: 168_000, buy_orders: 5, sell_orders: 5, book }],
      { name: 'bazaar', lastUpdated: NOW, storedAt: NOW, records: 1, source: 'simulator' },
    );
    const clock = new ManualClock(NOW);
    const engine = new FlipEngine(store, clock, undefined, { pollMs: 0 });
    await engine.refresh();
    assert.equal(engine.bazaar!.reverseNpc.find((f) => f.itemId === 'ZZ_ORE'), undefined);

    const body = JSON.stringify({ npcName: 'Zed', offers: [{ itemTag: 'ZZ_ORE', count: 2, costs: coins(100) }] });
    await store.dataUploads.add({ id: 'u1', requestId: 'mod:first', kind: NPC_SHOP_UPLOAD_KIND, bytes: body.length, body, receivedAt: NOW });
    await engine.refresh(true);
    assert.equal(engine.bazaar!.reverseNpc.find((f) => f.itemId === 'ZZ_ORE'), undefined, 'one player is not enough (NPC_UPLOAD_QUORUM 2)');
    await store.dataUploads.add({ id: 'u2', requestId: 'mod:second', kind: NPC_SHOP_UPLOAD_KIND, bytes: body.length, body, receivedAt: NOW });
    await engine.refresh(true);
    const flip = engine.bazaar!.reverseNpc.find((f) => f.itemId === 'ZZ_ORE');
    assert.ok(flip, 'flip from the uploaded offer');
    assert.equal(flip.npcName, 'Zed');
    assert.equal(flip.npcBuyPrice, 50);
    // 99 after the 1.25 % tax, minus 50 per unit.
    assert.ok(Math.abs(flip.profit - (99 * (1 - 0.0125) - 50)) < 0.05, `profit ${flip.profit}`);
  });
});
