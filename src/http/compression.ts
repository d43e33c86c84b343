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
 * A prepared answer (http/prepared-answers.ts: the lowest-BIN page, the bazaar snapshot, a bulk
 * file …) keeps its own variants, made once per encoding and generation; this hook sends them, and
 * the stored-response fast path (stored-responses.ts) sends the same bytes with the same headers
 * (`compressionHeaders`). Other bodies (answers serialised per request) are compressed per request
 * on the thread pool; the codecs are http/codecs.ts.
 *
 * Why not @fastify/compress: it compresses every answer anew through streams, with no place
 * to keep a variant per prepared Buffer, and the fast path in front of Fastify could not reuse
 * its negotiation or its bytes. This is node:zlib and one negotiation function shared by both paths.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { compress, type Encoding } from './codecs.ts';
import { preparedAnswerOf } from './prepared-answers.ts';

export { COMPRESS_MIN_BYTES, compressibleType, compressSync, type Encoding } from './codecs.ts';
import { COMPRESS_MIN_BYTES, compressibleType } from './codecs.ts';

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
      // A prepared answer (http/prepared-answers.ts) is compressed once per encoding and kept with it.
      const prepared = Buffer.isBuffer(payload) ? preparedAnswerOf(payload) : undefined;
      if (prepared) return prepared.variantAsync(encoding, (err, out) => (err ? done(err) : done(null, out)));
      compress(payload, encoding, (err, out) => (err ? done(err) : done(null, out)));
    });
  },
  { name: 'skymarket-compression' },
);
