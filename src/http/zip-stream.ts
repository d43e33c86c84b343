/**
 * A streamed zip archive holding exactly one deflated file whose size is not known up
 * front (general purpose bit 3: CRC and sizes follow the data in a data descriptor and
 * are repeated in the central directory). Replaces yazl on the export's hot path: its
 * pure-JS CRC-32 and chain of four extra Transform streams cost about as much CPU as
 * generating the JSON; here the CRC is zlib's native one and deflate runs on libuv's
 * thread pool while the caller produces the next chunk.
 *
 * No ZIP64: an entry or archive over 4 GiB fails the stream (the bazaar export stays far
 * below: 14 days with full order books is ~200 MB of JSON).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw, type ZlibOptions } from 'node:zlib';

const VERSION_NEEDED = 20; // 2.0: deflate
const VERSION_MADE_BY = (3 << 8) | 63; // unix, spec 6.3
const FLAGS = (1 << 3) | (1 << 11); // sizes in a data descriptor; UTF-8 name
const DEFLATE = 8;
const MAX_32 = 0xffffffff;
/** deflate's output buffer: a source chunk of ~1 MB of JSON compresses to well under it at level 1 */
const OUTPUT_CHUNK = 512 * 1024;

export interface ZipOneOptions {
  /** the file's name inside the archive */
  name: string;
  mtime: Date;
  /** zlib level 1–9 */
  level: number;
  /**
   * Uncompressed bytes deflate may hold queued: the source runs ahead by up to this much,
   * so producing the next chunk overlaps with compressing the previous one. Bounds memory.
   */
  queueBytes?: number;
}

/** DOS date and time in local time, clamped to 1980–2107 (as yazl and most zip tools do). */
function dosDateTime(d: Date): { date: number; time: number } {
  const t = Math.min(Math.max(d.getTime(), new Date(1980, 0, 1).getTime()), new Date(2107, 11, 31, 23, 59, 58).getTime());
  const c = new Date(t);
  return {
    date: (c.getDate() & 0x1f) | (((c.getMonth() + 1) & 0xf) << 5) | (((c.getFullYear() - 1980) & 0x7f) << 9),
    time: Math.floor(c.getSeconds() / 2) | ((c.getMinutes() & 0x3f) << 5) | ((c.getHours() & 0x1f) << 11),
  };
}

/** The zip archive as a byte stream; reads `source` only as fast as the consumer reads. */
export function zipOne(source: AsyncIterable<Buffer>, options: ZipOneOptions): Readable {
  return Readable.from(zipChunks(source, options), { objectMode: false, highWaterMark: 64 * 1024 });
}

async function* zipChunks(source: AsyncIterable<Buffer>, options: ZipOneOptions): AsyncGenerator<Buffer> {
  const name = Buffer.from(options.name, 'utf8');
  const { date, time } = dosDateTime(options.mtime);

  const local = Buffer.alloc(30 + name.length);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(VERSION_NEEDED, 4);
  local.writeUInt16LE(FLAGS, 6);
  local.writeUInt16LE(DEFLATE, 8);
  local.writeUInt16LE(time, 10);
  local.writeUInt16LE(date, 12);
  // CRC and both sizes stay 0 here: they follow in the data descriptor
  local.writeUInt16LE(name.length, 26);
  name.copy(local, 30);
  yield local;

  let crc = 0;
  let size = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      yield chunk;
      // A source that never waits for I/O (SQLite reads are synchronous) would otherwise produce
      // chunk after chunk in microtasks, and deflate's completions (macrotasks) would wait for
      // the queue to fill: the thread pool idled while this thread worked, and the reverse.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  // A writable side larger than one source chunk (zlib passes stream options through): the
  // pipeline fetches the next chunk while the thread pool compresses this one, instead of
  // waiting for 'drain' after each. An output buffer that holds a whole compressed chunk: each
  // chunk is then one job on the thread pool, not a round trip to this thread per 64 KB.
  const deflate = createDeflateRaw({
    level: options.level,
    chunkSize: OUTPUT_CHUNK,
    readableHighWaterMark: OUTPUT_CHUNK,
    writableHighWaterMark: options.queueBytes ?? 4 * 1024 * 1024,
  } as ZlibOptions);
  const feeding = pipeline(counted(), deflate);
  // The reader below sees any failure of the source or of deflate; this avoids an unhandled rejection.
  feeding.catch(() => {});
  let compressed = 0;
  try {
    for await (const out of deflate as AsyncIterable<Buffer>) {
      compressed += out.length;
      yield out;
    }
    await feeding;
  } finally {
    // The consumer went away (or failed): stop compressing and stop the source.
    if (!deflate.destroyed) deflate.destroy();
  }
  const offset = local.length + compressed;
  if (size > MAX_32 || offset > MAX_32) throw new Error('zip entry over 4 GiB: ZIP64 is not supported');

  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc >>> 0, 4);
  descriptor.writeUInt32LE(compressed, 8);
  descriptor.writeUInt32LE(size, 12);

  const central = Buffer.alloc(46 + name.length);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(VERSION_MADE_BY, 4);
  central.writeUInt16LE(VERSION_NEEDED, 6);
  central.writeUInt16LE(FLAGS, 8);
  central.writeUInt16LE(DEFLATE, 10);
  central.writeUInt16LE(time, 12);
  central.writeUInt16LE(date, 14);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(compressed, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(name.length, 28);
  // extra, comment, disk number, internal attributes: 0
  central.writeUInt32LE((0o100664 << 16) >>> 0, 38); // external attributes: a regular file, rw-rw-r--
  central.writeUInt32LE(0, 42); // the local header's offset
  name.copy(central, 46);

  const centralAt = offset + descriptor.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(centralAt, 16);
  if (centralAt + central.length > MAX_32) throw new Error('zip archive over 4 GiB: ZIP64 is not supported');
  yield Buffer.concat([descriptor, central, end]);
}
