/**
 * Data submission: proxied upstream data the mod fetched (POST /api/data/proxy) and
 * player-name auction hints (POST /api/data/playerName, /api/data/playerNames). The route checks
 * the upload and charges the quotas; the uploads service (services/uploads.ts) keeps it.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { PROXY_KIND_MAX_BYTES, PROXY_KINDS, UploadScanError, UploadScanner, type ProxyKind } from '../domain/uploads.ts';
import { PLAYER_NAME } from '../domain/player-data.ts';
import { createByteQuota } from '../http/limits.ts';
import { badRequest, HttpProblem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { WorkLane } from '../http/work-lane.ts';
import { PLAYER_NAMES_PROCESSED } from '../services/uploads.ts';

/** Largest proxy body accepted on the wire (compressed or not) and after gunzip (the largest kind's cap). */
export const PROXY_MAX_BYTES = 4 * 1024 * 1024;
export const PROXY_MAX_INFLATED_BYTES = Math.max(...Object.values(PROXY_KIND_MAX_BYTES));
/**
 * An upload is inflated and read in pieces of this size, the event loop free between two: a
 * piece costs ~2 ms of CPU to scan (docs/performance.md). Not smaller: each piece waits a turn of
 * the event loop, and a turn may be long while other work runs (the demo history's replay, issue
 * 45), so 16 KB pieces left a 16 MB upload waiting ~1,000 turns, 52-60 s; 256 KB pieces, 64.
 */
export const UPLOAD_PIECE_BYTES = 256 * 1024;
/**
 * Uploads scanned at once, and uploads waiting for a slot: beyond, 503 `busy` at once. Bounds the
 * scanning the event loop does per turn (a piece per slot) and the memory it holds (a piece and a
 * gzip window per slot), whatever clients send (issue 45 item 1).
 */
export const UPLOAD_SLOTS = 2;
export const UPLOAD_QUEUE = 8;
const BUSY_RETRY_SECONDS = 1;

function busy(): HttpProblem {
  return new HttpProblem(503, 'busy', `Too many uploads are being read right now. Retry in ${BUSY_RETRY_SECONDS} s.`, {}, { 'Retry-After': String(BUSY_RETRY_SECONDS) });
}

function unknownKind(): HttpProblem {
  return new HttpProblem(422, 'unknown_upload_kind', `The upload is none of the understood kinds: ${PROXY_KINDS.join(', ')}`, { kinds: PROXY_KINDS });
}

/**
 * What an upload is, read as it inflates (gzip runs on libuv's thread pool) and scanned without
 * building it, a piece at a time: stops at the first piece that makes it malformed, no kind, or
 * larger than every kind it can still be allows. Answers the kind and the inflated size.
 */
export async function inspectUpload(body: Buffer, gzipped: boolean): Promise<{ kind: ProxyKind; inflated: number }> {
  const scanner = new UploadScanner();
  let inflated = 0;
  const read = (piece: Uint8Array) => {
    inflated += piece.length;
    const possible = scanner.possibleKinds();
    if (possible.length === 0) throw unknownKind();
    const cap = Math.max(...possible.map((k) => PROXY_KIND_MAX_BYTES[k]));
    if (inflated > cap) throw new HttpProblem(413, 'body_too_large', `The upload inflates to more than ${cap} bytes, the most a ${possible.join(' or ')} upload may have`);
    scanner.write(piece);
  };
  try {
    if (gzipped) {
      const gunzip = createGunzip({ chunkSize: UPLOAD_PIECE_BYTES });
      gunzip.end(body);
      try {
        for await (const piece of gunzip) read(piece as Buffer);
      } catch (err) {
        if (err instanceof HttpProblem || err instanceof UploadScanError) throw err;
        throw badRequest('bad_gzip', 'Content-Encoding is gzip but the body is not valid gzip');
      } finally {
        gunzip.destroy();
      }
    } else {
      for (let at = 0; at < body.length; at += UPLOAD_PIECE_BYTES) {
        if (at > 0) await nextTurn();
        read(body.subarray(at, at + UPLOAD_PIECE_BYTES));
      }
    }
    scanner.end();
  } catch (err) {
    if (!(err instanceof UploadScanError)) throw err;
    throw badRequest(err.reason === 'too_deep' ? 'too_deep' : 'malformed_json', err.message);
  }
  const kind = scanner.kind();
  if (!kind) throw unknownKind();
  if (inflated > PROXY_KIND_MAX_BYTES[kind]) throw new HttpProblem(413, 'body_too_large', `A ${kind} upload may inflate to ${PROXY_KIND_MAX_BYTES[kind]} bytes; this one has ${inflated}`);
  return { kind, inflated };
}
/** Names answered per playerNames call (the reference processes 24); more are refused. */
export const PLAYER_NAMES_MAX = 100;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const Source = Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$', default: 'anonym' });
const Tuple = Type.Object(
  {
    item1: Type.Integer({ description: '1 when the name is known (its uuid was seen), else 0' }),
    item2: Type.Integer({ description: 'number of active auctions stored for that player (0 when unknown)' }),
  },
  { $id: 'Int32Int64ValueTuple' },
);

export async function dataRoutes(app: FastifyInstance) {
  const uploads = app.services.uploads;
  const lane = new WorkLane(UPLOAD_SLOTS, UPLOAD_QUEUE);
  const { config } = app.context;
  app.addSchema(Tuple);
  // Stored bytes per client and for everyone, per day: uploads live 2 days (DATA_UPLOAD_RETENTION_MS).
  const DAY = 86_400;
  const clientQuota = createByteQuota(app, { keyPrefix: 'proxy-client', bytes: config.proxyQuotaClientMb * 1024 * 1024, durationSec: DAY, what: 'Your uploads' });
  const totalQuota = createByteQuota(app, { keyPrefix: 'proxy-total', bytes: config.proxyQuotaTotalMb * 1024 * 1024, durationSec: DAY, what: 'Uploads of all clients' });
  const clientOf = (request: FastifyRequest) => (request.account ? `account:${request.account.id}` : `ip:${request.clientIp}`);

  // The proxy takes any body as raw bytes: its own parser, in its own context.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PROXY_MAX_BYTES }, (_request, body, done) => done(null, body));
    raw.post(
      '/api/data/proxy',
      {
        schema: {
          tags: ['data'],
          summary: 'Upload upstream data the mod obtained (raw JSON, optionally Content-Encoding: gzip); answers "received <id>"',
          description:
            `Understood kinds: ${PROXY_KINDS.join(', ')} (see docs/api.md). The body is stored (compressed) for 2 days for ingestion. ` +
            `At most ${PROXY_MAX_BYTES} bytes on the wire and, after gunzip, ${PROXY_KINDS.map((k) => `${PROXY_KIND_MAX_BYTES[k]} for ${k}`).join(', ')}. ` +
            'Stored bytes count against a daily quota per client and for all clients (429 quota_exceeded; docs/security.md). ' +
            'X-Request-Id (1-100 of A-Z a-z 0-9 . _ : -) is the correlation id; one is generated when absent.',
          headers: Type.Object({ 'x-request-id': Type.Optional(Type.String({ maxLength: 100 })) }),
          response: { 200: Type.String(), ...problemResponses(400, 413, 415, 422, 429, 503) },
        },
        config: { cache: 'no-store' },
      },
      async (request, reply) => {
        const requestId = (request.headers['x-request-id'] as string | undefined) ?? randomUUID();
        if (!REQUEST_ID.test(requestId)) throw badRequest('invalid_request_id', 'X-Request-Id must be 1-100 characters of A-Z a-z 0-9 . _ : -');
        const body = request.body as Buffer | undefined;
        if (!body || body.length === 0) throw badRequest('empty_body', 'The upload is empty');
        const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
        if (encoding !== 'gzip' && encoding !== 'identity') {
          throw new HttpProblem(415, 'unsupported_encoding', `Content-Encoding '${encoding}' is not supported: send gzip or none`);
        }
        // Refused before it is charged or read when the lane is full (checked again when it enters).
        if (lane.load >= UPLOAD_SLOTS + UPLOAD_QUEUE) throw busy();
        // Charged before the work (what arrived is at least what is stored), the difference given back after.
        const client = clientOf(request);
        await clientQuota.charge(client, body.length);
        try {
          await totalQuota.charge('all', body.length);
        } catch (err) {
          await clientQuota.refund(client, body.length);
          throw err;
        }
        let kept = 0;
        try {
          const gzipped = encoding === 'gzip';
          const inspected = await lane.run(() => inspectUpload(body, gzipped));
          if (!inspected) throw busy();
          const { kind, inflated } = inspected.value;
          kept = await uploads.keep({ requestId, kind, inflated, body, gzipped });
        } finally {
          await Promise.all([clientQuota.refund(client, body.length - kept), totalQuota.refund('all', body.length - kept)]);
        }
        return reply.type('text/plain; charset=utf-8').send(`received ${requestId}`);
      },
    );
  });

  app.post(
    '/api/data/playerName',
    {
      schema: {
        tags: ['data'],
        summary: 'Player-name auction hint: is this player known, and how many active auctions do we hold for them',
        querystring: Type.Object({ name: Type.String({ pattern: PLAYER_NAME.source }), source: Type.Optional(Source) }, { additionalProperties: false }),
        response: { 200: Type.Ref('Int32Int64ValueTuple'), ...problemResponses(400) },
      },
      config: { cache: 'no-store' },
    },
    async (request) => uploads.hint((request.query as { name: string }).name),
  );

  app.post(
    '/api/data/playerNames',
    {
      schema: {
        tags: ['data'],
        summary: `Player-name auction hints for up to ${PLAYER_NAMES_MAX} names (distinct, the first ${PLAYER_NAMES_PROCESSED} answered)`,
        querystring: Type.Object({ source: Type.Optional(Source) }, { additionalProperties: false }),
        body: Type.Array(Type.String({ pattern: PLAYER_NAME.source }), { maxItems: PLAYER_NAMES_MAX }),
        response: { 200: Type.Array(Type.Ref('Int32Int64ValueTuple')), ...problemResponses(400) },
      },
      config: { cache: 'no-store' },
    },
    async (request) => uploads.playerHints(request.body as string[]),
  );
}
