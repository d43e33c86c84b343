/**
 * What the mod's data submissions ask: keep an upload of upstream data for ingestion (stored
 * compressed, 2 days), and answer player-name hints (is the player known, how many active
 * auctions are stored for them).
 */
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { gzip } from 'node:zlib';
import type { Clock } from '../clock.ts';
import type { ProxyKind } from '../domain/uploads.ts';
import type { DataUploadRepository } from '../store/repositories/data-uploads.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';

const gzipAsync = promisify(gzip);

/** Names answered per playerNames call (the reference processes 24). */
export const PLAYER_NAMES_PROCESSED = 24;

export interface InspectedUpload {
  requestId: string;
  kind: ProxyKind;
  /** bytes after gunzip */
  inflated: number;
  body: Buffer;
  /** the body as it came is gzip (already checked to inflate within its kind's cap) */
  gzipped: boolean;
}

/** A player-name hint: `item1` 1 when the name is known, `item2` the active auctions stored for the player. */
export interface PlayerHint {
  item1: number;
  item2: number;
}

/** What UploadsService writes and reads: uploads, and the player names the hints answer from. */
export interface UploadsStore {
  readonly dataUploads: Pick<DataUploadRepository, 'add'>;
  readonly playerNames: Pick<PlayerNameRepository, 'findByName' | 'touch' | 'activeAuctionCount'>;
}

export class UploadsService {
  constructor(
    private readonly store: UploadsStore,
    private readonly clock: Clock,
  ) {}

  /** Stores an inspected upload; answers the bytes kept (what counts against the quotas). */
  async keep(upload: InspectedUpload): Promise<number> {
    // A gzip upload is stored as it came; plain JSON is compressed.
    const stored = upload.gzipped ? upload.body : await gzipAsync(upload.body);
    await this.store.dataUploads.add({ id: randomUUID(), requestId: upload.requestId, kind: upload.kind, bytes: upload.inflated, gzip: stored, receivedAt: this.clock.now() });
    return stored.length;
  }

  /** Hints for distinct names (case-insensitive), the first PLAYER_NAMES_PROCESSED of them, in order. */
  async playerHints(names: readonly string[]): Promise<PlayerHint[]> {
    const seen = new Set<string>();
    const out: PlayerHint[] = [];
    for (const name of names) {
      const key = name.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(await this.hint(name));
      if (out.length === PLAYER_NAMES_PROCESSED) break;
    }
    return out;
  }

  async hint(name: string): Promise<PlayerHint> {
    const known = await this.store.playerNames.findByName(name);
    if (!known) return { item1: 0, item2: 0 };
    await this.store.playerNames.touch(known.playerUuid, this.clock.now());
    return { item1: 1, item2: await this.store.playerNames.activeAuctionCount(known.playerUuid) };
  }
}
