/**
 * Response compression: JSON and text answers of at least COMPRESS_MIN_BYTES are sent with
 * `Content-Encoding: br` or `gzip` when the request's Accept-Encoding takes one (brotli on a tie,
 * identity when neither is acceptable), and every such answer, compressed or not, says
 * `Vary: Accept-Encoding`. Streams (zip exports), small bodies, other types and answers that
 * already carry a Content-Encoding go out untouched.
 *
 * The hook runs before the caching plugin's: the ETag is the hash of the bytes sent, so each
 * encoding has its own strong ETag and If-None-Match compares like for like (RFC 9110 §8.8.3).
 *
 * Compressed variants of a Buffer body are remembered per Buffer (a WeakMap, like the ETags):
 * a route that serves one prepared Buffer until its data changes (the lowest-BIN page, the
 * bazaar snapshot) compresses it once per encoding and generation, and the stored-response fast
 * path (stored-responses.ts) sends the same remembered bytes with the same headers
 * (`compressionHeaders`). A prepared body may bring its own variants (`rememberVariants`).
 * String bodies (answers serialised per request) are compressed per request on the thread pool.
 *
 * Why not @fastify/compress: it compresses every answer anew through streams, with no place
 * to keep a variant per prepared Buffer, and the fast path in front of Fastify could not reuse
 * its negotiation or its bytes. This is node:zlib and one negotiation function shared by both paths.
 */
import { constants, brotliCompress, brotliCompressSync, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export type Encoding = 'br' | 'gzip';

/** Bodies smaller than this are sent as they are (a gzip header alone is 20 bytes; below ~1 KB it rarely pays). */
export const COMPRESS_MIN_BYTES = 1024;

/** gzip level 6 (zlib's default); brotli quality 4: smaller than gzip-6 on JSON at about the same CPU (docs/performance.md). */
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

const negotiated = new Map<string, Encoding | undefined>();
const NEGOTIATED_MAX = 256;

/**
 * The encoding to send for an Accept-Encoding header: the acceptable one (q > 0) of br and gzip
 * with the higher q, brotli on a tie; undefined (identity) when neither is acceptable.
 * `*` stands for codings not named. Remembered per header value (clients send a handful).
 */
export function chooseEncoding(header: string | undefined): Encoding | undefined {
  if (header === undefined || header === '') return undefined;
  const known = negotiated.get(header);
  if (known !== undefined || negotiated.has(header)) return known;
  let br: number | undefined;
  let gz: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';');
    const coding = name.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [key, value] = p.split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(value?.trim());
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    if (coding === 'br') br = Math.max(br ?? 0, q);
    else if (coding === 'gzip' || coding === 'x-gzip') gz = Math.max(gz ?? 0, q);
    else if (coding === '*') any = Math.max(any ?? 0, q);
  }
  const qBr = br ?? any ?? 0;
  const qGzip = gz ?? any ?? 0;
  const chosen: Encoding | undefined = qBr > 0 && qBr >= qGzip ? 'br' : qGzip > 0 ? 'gzip' : undefined;
  if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
  negotiated.set(header, chosen);
  return chosen;
}

/**
 * The headers an answer eligible for compression carries, in the order both paths write them:
 * the encoding when one is used, and `Vary: Accept-Encoding` either way (the caching plugin
 * appends `Accept` to it).
 */
export function compressionHeaders(encoding: Encoding | undefined): Record<string, string> {
  return encoding === undefined ? { vary: 'Accept-Encoding' } : { 'content-encoding': encoding, vary: 'Accept-Encoding' };
}

interface Variants {
  gzip?: Buffer;
  br?: Buffer;
}
const variants = new WeakMap<Buffer, Variants>();

/** Registers compressed variants prepared with a body (computed elsewhere, once): both paths then send them. */
export function rememberVariants(body: Buffer, given: Variants): void {
  const known = variants.get(body) ?? {};
  if (given.gzip) known.gzip = given.gzip;
  if (given.br) known.br = given.br;
  variants.set(body, known);
}

/** The remembered variant of a Buffer body, or undefined when it has not been compressed yet. */
export function knownVariant(body: Buffer, encoding: Encoding): Buffer | undefined {
  return variants.get(body)?.[encoding];
}

/** The variant of a Buffer body, compressed now (synchronously) when not remembered yet, then remembered. */
export function variantOf(body: Buffer, encoding: Encoding): Buffer {
  const known = knownVariant(body, encoding);
  if (known) return known;
  const compressed = compressSync(body, encoding);
  rememberVariants(body, { [encoding]: compressed });
  return compressed;
}

/** Compresses as the hook does, synchronously (benchmarks measure the CPU of one answer with it). */
export function compressSync(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, brotliOptions(body.length)) : gzipSync(body, GZIP_OPTIONS);
}

function compress(payload: string | Buffer, encoding: Encoding, done: (err: Error | null, out: Buffer) => void): void {
  if (encoding === 'br') brotliCompress(payload, brotliOptions(Buffer.byteLength(payload)), done);
  else gzip(payload, GZIP_OPTIONS, done);
}

export const compressionPlugin = fp(
  async function compression(app: FastifyInstance) {
    // Callback style: no promise per response.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      if (reply.hasHeader('content-encoding')) return done(null, payload);
      const size = typeof payload === 'string' ? (payload.length < COMPRESS_MIN_BYTES / 3 ? 0 : Buffer.byteLength(payload)) : payload.length;
      if (size < COMPRESS_MIN_BYTES) return done(null, payload);
      if (!compressibleType(String(reply.getHeader('content-type') ?? ''))) return done(null, payload);
      const encoding = chooseEncoding(request.headers['accept-encoding']);
      const vary = reply.getHeader('vary');
      const headers = compressionHeaders(encoding);
      // A route that varies already (by Origin, or by Accept-Encoding itself) keeps its list.
      if (vary !== undefined && vary !== '') headers.vary = /accept-encoding/i.test(String(vary)) ? String(vary) : `${String(vary)}, Accept-Encoding`;
      reply.headers(headers);
      if (encoding === undefined) return done(null, payload);
      if (Buffer.isBuffer(payload)) {
        const known = knownVariant(payload, encoding);
        if (known) return done(null, known);
        return compress(payload, encoding, (err, out) => {
          if (err) return done(err);
          // Two requests may compress the same new Buffer at once: the first remembered wins, so both paths agree.
          const first = knownVariant(payload, encoding);
          if (first) return done(null, first);
          rememberVariants(payload, { [encoding]: out });
          done(null, out);
        });
      }
      compress(payload, encoding, (err, out) => (err ? done(err) : done(null, out)));
    });
  },
  { name: 'skymarket-compression' },
);
