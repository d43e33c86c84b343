/**
 * The compression codecs both paths use (http/compression.ts negotiates, http/prepared-answers.ts
 * keeps a prepared answer's variants): gzip level 6 (zlib's default) and brotli quality 4, smaller
 * than gzip-6 on JSON at about the same CPU (docs/performance.md). One set of options, so every
 * path sends the same bytes for the same body.
 */
import { constants, brotliCompress, brotliCompressSync, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** Bodies smaller than this are sent as they are (a gzip header alone is 20 bytes; below ~1 KB it rarely pays). */
export const COMPRESS_MIN_BYTES = 1024;

const GZIP_OPTIONS: ZlibOptions = { level: 6 };
function brotliOptions(size: number): BrotliOptions {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 4,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

/** The content types worth compressing: JSON (also problem+json and the +json types) and text. */
export function compressibleType(contentType: string): boolean {
  return contentType.startsWith('application/json') || contentType.startsWith('text/') || /^application\/[\w.-]+\+json/.test(contentType);
}

/** Compresses synchronously (the fast path's first answer of a kind; benchmarks measure one answer's CPU with it). */
export function compressSync(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, brotliOptions(body.length)) : gzipSync(body, GZIP_OPTIONS);
}

/** Compresses on the thread pool (the normal path's answers). */
export function compress(payload: string | Buffer, encoding: Encoding, done: (err: Error | null, out: Buffer) => void): void {
  if (encoding === 'br') brotliCompress(payload, brotliOptions(Buffer.byteLength(payload)), done);
  else gzip(payload, GZIP_OPTIONS, done);
}
