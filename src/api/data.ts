/**
 * Data submission: proxied upstream data the mod fetched (POST /api/data/proxy) and
 * player-name auction hints (POST /api/data/playerName, /api/data/playerNames).
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { classifyUpload, PROXY_KINDS } from '../domain/uploads.ts';
import { PLAYER_NAME } from '../domain/player-data.ts';
import { badRequest, HttpProblem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';

/** Largest proxy body accepted on the wire (compressed or not) and after gunzip. */
export const PROXY_MAX_BYTES = 4 * 1024 * 1024;
export const PROXY_MAX_INFLATED_BYTES = 16 * 1024 * 1024;
/** Names answered per playerNames call (the reference processes 24); more are refused. */
export const PLAYER_NAMES_MAX = 100;
export const PLAYER_NAMES_PROCESSED = 24;

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
  const { store, clock } = app;
  app.addSchema(Tuple);

  async function hint(name: string): Promise<{ item1: number; item2: number }> {
    const known = await store.playerNames.findByName(name);
    if (!known) return { item1: 0, item2: 0 };
    await store.playerNames.touch(known.playerUuid, clock.now());
    return { item1: 1, item2: await store.playerNames.activeAuctionCount(known.playerUuid) };
  }

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
            `Understood kinds: ${PROXY_KINDS.join(', ')} (see docs/api.md). The body is stored for 2 days for ingestion. ` +
            `At most ${PROXY_MAX_BYTES} bytes on the wire and ${PROXY_MAX_INFLATED_BYTES} after gunzip. ` +
            'X-Request-Id (1-100 of A-Z a-z 0-9 . _ : -) is the correlation id; one is generated when absent.',
          headers: Type.Object({ 'x-request-id': Type.Optional(Type.String({ maxLength: 100 })) }),
          response: { 200: Type.String(), ...problemResponses(400, 413, 415, 422) },
        },
        config: { cache: 'no-store' },
      },
      async (request, reply) => {
        const requestId = (request.headers['x-request-id'] as string | undefined) ?? randomUUID();
        if (!REQUEST_ID.test(requestId)) throw badRequest('invalid_request_id', 'X-Request-Id must be 1-100 characters of A-Z a-z 0-9 . _ : -');
        let body = request.body as Buffer | undefined;
        if (!body || body.length === 0) throw badRequest('empty_body', 'The upload is empty');
        const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
        if (encoding === 'gzip') {
          try {
            body = gunzipSync(body, { maxOutputLength: PROXY_MAX_INFLATED_BYTES });
          } catch (err) {
            if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
              throw new HttpProblem(413, 'body_too_large', `The upload inflates to more than ${PROXY_MAX_INFLATED_BYTES} bytes`);
            }
            throw badRequest('bad_gzip', 'Content-Encoding is gzip but the body is not valid gzip');
          }
        } else if (encoding !== 'identity') {
          throw new HttpProblem(415, 'unsupported_encoding', `Content-Encoding '${encoding}' is not supported: send gzip or none`);
        }
        const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw badRequest('malformed_json', 'The upload is not JSON');
        }
        const kind = classifyUpload(parsed);
        if (!kind) {
          throw new HttpProblem(422, 'unknown_upload_kind', `The upload is none of the understood kinds: ${PROXY_KINDS.join(', ')}`, { kinds: PROXY_KINDS });
        }
        await store.dataUploads.add({ id: randomUUID(), requestId, kind, bytes: body.length, body: text, receivedAt: clock.now() });
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
    async (request) => hint((request.query as { name: string }).name),
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
    async (request) => {
      const seen = new Set<string>();
      const names: string[] = [];
      for (const name of request.body as string[]) {
        const key = name.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        names.push(name);
        if (names.length === PLAYER_NAMES_PROCESSED) break;
      }
      const out = [];
      for (const name of names) out.push(await hint(name));
      return out;
    },
  );
}
