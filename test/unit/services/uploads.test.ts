/** UploadsService over fakes of the uploads and player-name repositories (UploadsStore) and the manual clock. */
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { PLAYER_NAMES_PROCESSED, UploadsService, type UploadsStore } from '../../../src/services/uploads.ts';
import type { NewDataUpload } from '../../../src/store/repositories/data-uploads.ts';
import { fakePlayerNames } from '../../helpers/fake-repositories.ts';

const T0 = Date.UTC(2026, 10, 29, 12);

function setUp(names: Parameters<typeof fakePlayerNames>[0] = []) {
  const kept: NewDataUpload[] = [];
  const playerNames = fakePlayerNames(names);
  const store: UploadsStore = { dataUploads: { add: async (u) => void kept.push(u) }, playerNames: playerNames.repo };
  const clock = new ManualClock(T0);
  return { service: new UploadsService(store, clock), kept, touched: playerNames.touched, clock };
}

describe('UploadsService (unit, over fakes)', () => {
  it('keeps plain JSON compressed and a gzip body as it came, stamped with the clock; answers the bytes kept', async () => {
    const { service, kept } = setUp();
    const json = Buffer.from(JSON.stringify({ success: true, auctions: new Array(50).fill({ uuid: 'x' }) }));
    const plainBytes = await service.keep({ requestId: 'r1', kind: 'auctions_page', inflated: json.length, body: json, gzipped: false });
    const gz = gzipSync(json);
    const gzBytes = await service.keep({ requestId: 'r2', kind: 'bazaar', inflated: json.length, body: gz, gzipped: true });
    assert.equal(kept.length, 2);
    const [plain, zipped] = kept as Array<NewDataUpload & { gzip: Uint8Array }>;
    assert.deepEqual(gunzipSync(plain!.gzip), json, 'plain JSON is stored gzip-compressed');
    assert.ok(plainBytes < json.length && plainBytes === plain!.gzip.length);
    assert.equal(zipped!.gzip, gz, 'a gzip body is stored as it came');
    assert.equal(gzBytes, gz.length);
    assert.deepEqual([plain!.requestId, plain!.kind, plain!.bytes, plain!.receivedAt], ['r1', 'auctions_page', json.length, T0]);
    assert.notEqual(plain!.id, zipped!.id);
  });

  it('a known name is touched at the clock\'s time and answers its active auctions; an unknown one answers zeros', async () => {
    const { service, touched, clock } = setUp([{ playerUuid: 'p1', name: 'Notch', activeAuctions: 3 }]);
    clock.advance(60_000);
    assert.deepEqual(await service.hint('notch'), { item1: 1, item2: 3 });
    assert.deepEqual(await service.hint('Nobody'), { item1: 0, item2: 0 });
    assert.deepEqual(touched, [{ playerUuid: 'p1', now: T0 + 60_000 }]);
  });

  it('hints for distinct names (case-insensitively), in order, at most PLAYER_NAMES_PROCESSED of them', async () => {
    const { service } = setUp([{ playerUuid: 'p1', name: 'Notch', activeAuctions: 2 }]);
    assert.deepEqual(await service.playerHints(['Notch', 'NOTCH', 'jeb_', 'notch']), [{ item1: 1, item2: 2 }, { item1: 0, item2: 0 }]);
    const many = Array.from({ length: PLAYER_NAMES_PROCESSED + 10 }, (_, i) => `player${i}`);
    assert.equal((await service.playerHints(many)).length, PLAYER_NAMES_PROCESSED);
  });
});
