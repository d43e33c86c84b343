/**
 * `skymarket gamedata sync`: downloads a NotEnoughUpdates repository archive (.tar.gz) from a
 * configurable URL, verifies it (HTTP status, optional SHA-256, gzip, a loadable repository
 * with items), unpacks it with `tar` and swaps it into `DATA_DIR/gamedata/neu-repo` in one
 * rename, so a failed sync never leaves a half-written copy behind.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { fetch, type Dispatcher } from 'undici';
import { describeNetworkError } from '../network-errors.ts';
import { syncedGameDataPath } from './index.ts';
import { isNeuRepository, loadNeuRepository } from './neu.ts';


export interface SyncOptions {
  url: string;
  dataDir: string;
  /** expected SHA-256 of the archive (hex); verified when given */
  sha256?: string | undefined;
  timeoutMs?: number;
  /** called as bytes arrive; `total` is undefined without a Content-Length */
  onProgress?: (received: number, total: number | undefined) => void;
  /** the HTTP dispatcher (undici); default the global one. Tests inject failures here. */
  dispatcher?: Dispatcher;
}

export interface SyncResult {
  path: string;
  bytes: number;
  sha256: string;
  items: number;
  recipes: number;
}

export class GameDataSyncError extends Error {
  override name = 'GameDataSyncError';

  constructor(
    message: string,
    /** what the operator can do instead, when there is something (shown on a line of its own) */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** What to do when the archive cannot be downloaded: the offline ways to game data. */
export const OFFLINE_HINT =
  'to work offline, set GAME_DATA_DIR to a NotEnoughUpdates repository checkout (a folder with items/ and constants/, ' +
  'e.g. a git clone copied from another machine): the service reads it directly and needs no sync; or point --url / ' +
  'GAME_DATA_URL at a reachable copy of the archive. Without either, the service runs on its built-in item catalog.';

/** A download that failed before or while the body arrived, in words: which URL, which host, why. */
function downloadError(url: string, err: unknown): GameDataSyncError {
  if (err instanceof GameDataSyncError) return err;
  let host: string | undefined;
  try {
    host = new URL(url).host;
  } catch {
    host = undefined;
  }
  const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
  const why = timedOut ? `no complete answer within the time limit (${err.message})` : describeNetworkError(err, host);
  return new GameDataSyncError(`could not download the game data archive from ${url}: ${why}`, OFFLINE_HINT);
}

export async function syncGameData(options: SyncOptions): Promise<SyncResult> {
  const root = join(options.dataDir, 'gamedata');
  mkdirSync(root, { recursive: true });
  const stamp = `${process.pid}-${Date.now()}`;
  const archive = join(root, `download-${stamp}.tar.gz`);
  const staging = join(root, `staging-${stamp}`);
  try {
    const res = await fetch(options.url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 300_000),
      redirect: 'follow',
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    }).catch((err: unknown) => {
      throw downloadError(options.url, err);
    });
    if (res.status !== 200 || !res.body) {
      throw new GameDataSyncError(`download failed: HTTP ${res.status} from ${options.url}`, OFFLINE_HINT);
    }
    const lengthHeader = res.headers.get('content-length');
    const total = lengthHeader && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
    const hash = createHash('sha256');
    let received = 0;
    let head: Buffer | undefined;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        if (!head) head = chunk.subarray(0, 2);
        hash.update(chunk);
        received += chunk.length;
        options.onProgress?.(received, total);
        done(null, chunk);
      },
    });
    await pipeline(res.body, meter, createWriteStream(archive)).catch((err: unknown) => {
      throw downloadError(options.url, err);
    });
    if (total !== undefined && received !== total) throw new GameDataSyncError(`download truncated: ${received} of ${total} bytes`);
    const digest = hash.digest('hex');
    if (options.sha256 && options.sha256.toLowerCase() !== digest) {
      throw new GameDataSyncError(`checksum mismatch: expected ${options.sha256.toLowerCase()}, got ${digest}`);
    }
    if (!head || head[0] !== 0x1f || head[1] !== 0x8b) throw new GameDataSyncError('the download is not a gzip archive');

    mkdirSync(staging);
    try {
      await tar.x({
        file: archive,
        cwd: staging,
        // Plain files and directories only: no links or devices from a downloaded archive.
        filter: (_path, entry) => 'type' in entry && (entry.type === 'File' || entry.type === 'Directory' || entry.type === 'OldFile'),
      });
    } catch (err) {
      throw new GameDataSyncError(`archive could not be unpacked: ${err instanceof Error ? err.message : String(err)}`);
    }
    const repo = findRepository(staging);
    if (!repo) throw new GameDataSyncError('the archive holds no NotEnoughUpdates repository (items/ and constants/)');
    const data = loadNeuRepository(repo, 'synced');
    if (data.report.itemFiles === 0 || data.items.size === 0) throw new GameDataSyncError('the archive holds no items');

    const target = syncedGameDataPath(options.dataDir);
    const old = `${target}.old-${stamp}`;
    if (existsSync(target)) renameSync(target, old);
    renameSync(repo, target);
    rmSync(old, { recursive: true, force: true });
    let recipes = 0;
    for (const list of data.recipes.values()) recipes += list.length;
    return { path: target, bytes: received, sha256: digest, items: data.report.itemFiles, recipes };
  } finally {
    rmSync(archive, { force: true });
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The repository root inside an unpacked archive: the root itself or its single top-level folder. */
function findRepository(dir: string): string | undefined {
  if (isNeuRepository(dir)) return dir;
  const dirs = readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory());
  if (dirs.length === 1 && isNeuRepository(join(dir, dirs[0]!))) return join(dir, dirs[0]!);
  return undefined;
}

/** A one-line text progress bar for a terminal. */
export function progressLine(received: number, total: number | undefined): string {
  const mb = (n: number) => (n / 1_048_576).toFixed(1);
  if (!total) return `downloading ${mb(received)} MB`;
  const share = Math.min(1, received / total);
  const width = 30;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}% ${mb(received)}/${mb(total)} MB`;
}
