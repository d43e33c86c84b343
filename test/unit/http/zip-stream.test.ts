import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { zipOne } from '../../../src/http/zip-stream.ts';
import { unzip } from '../../helpers/unzip.ts';

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

async function* chunks(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield p;
}

describe('zipOne', () => {
  it('streams one deflated file that unzips to the same bytes, CRC and sizes in the data descriptor and directory', async () => {
    const parts = [Buffer.from('['), randomBytes(200_000), Buffer.from('"x"'.repeat(50_000)), Buffer.from(']')];
    const data = Buffer.concat(parts);
    const zip = await collect(zipOne(chunks(...parts), { name: 'PRÜF_ITEM.json', mtime: new Date(2026, 10, 22, 12, 30, 14), level: 1 }));
    const entries = unzip(zip);
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.name, 'PRÜF_ITEM.json');
    assert.ok(entries[0]!.data.equals(data));
    // local header: bit 3 (sizes follow) and bit 11 (UTF-8 name), deflate, DOS time 12:30:14 local
    assert.equal(zip.readUInt32LE(0), 0x04034b50);
    assert.equal(zip.readUInt16LE(6), (1 << 3) | (1 << 11));
    assert.equal(zip.readUInt16LE(8), 8);
    assert.equal(zip.readUInt16LE(10), (12 << 11) | (30 << 5) | 7);
    assert.equal(zip.readUInt16LE(12), ((2026 - 1980) << 9) | (11 << 5) | 22);
    // data descriptor right before the central directory
    const central = zip.readUInt32LE(zip.length - 22 + 16);
    assert.equal(zip.readUInt32LE(central - 16), 0x08074b50);
    assert.equal(zip.readUInt32LE(central - 12), crc32(data) >>> 0);
    assert.equal(zip.readUInt32LE(central - 4), data.length);
    assert.ok(zip.length < data.length, 'compressed');
  });

  it('an empty source gives a valid archive with an empty file', async () => {
    const entries = unzip(await collect(zipOne(chunks(), { name: 'empty.json', mtime: new Date(), level: 6 })));
    assert.deepEqual(entries.map((e) => [e.name, e.data.length]), [['empty.json', 0]]);
  });

  it('fails the stream when the source fails', async () => {
    async function* failing(): AsyncGenerator<Buffer> {
      yield Buffer.from('[1,2');
      throw new Error('database went away');
    }
    await assert.rejects(collect(zipOne(failing(), { name: 'x.json', mtime: new Date(), level: 1 })), /database went away/);
  });

  it('reads the source only as fast as the consumer reads, and stops it when the consumer goes away', { timeout: 60_000 }, async () => {
    let produced = 0;
    let stopped = false;
    async function* endless(): AsyncGenerator<Buffer> {
      try {
        for (;;) {
          const chunk = randomBytes(64 * 1024); // incompressible: output keeps pace with input
          produced += chunk.length;
          yield chunk;
          await new Promise(setImmediate); // like a database read: lets timers run
        }
      } finally {
        stopped = true;
      }
    }
    const zip = zipOne(endless(), { name: 'x.json', mtime: new Date(), level: 1, queueBytes: 1024 * 1024 });
    const reader = zip[Symbol.asyncIterator]();
    let read = 0;
    while (read < 512 * 1024) read += ((await reader.next()).value as Buffer).length;
    // A stopped consumer: production settles within the queue plus the streams' buffers.
    let last = -1;
    for (let i = 0; i < 100 && produced !== last; i++) {
      last = produced;
      await sleep(50);
    }
    assert.ok(produced < read + 4 * 1024 * 1024, `produced ${produced} bytes for ${read} read`);
    await reader.return?.(); // the consumer goes away
    for (let i = 0; i < 100 && !stopped; i++) await sleep(20);
    assert.ok(stopped, 'the source was stopped');
  });
});
