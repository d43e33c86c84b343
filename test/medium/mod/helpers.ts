/** A small promise-based client for the mod socket, and item bytes in both NBT layouts. */
import { gzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import WebSocket from 'ws';

export interface Reply {
  type: string;
  id?: string | number;
  command?: string;
  code?: string;
  message?: string;
  data?: any;
  [k: string]: unknown;
}

export class ModClient {
  readonly messages: Reply[] = [];
  private waiters: Array<{ match: (m: Reply) => boolean; resolve: (m: Reply) => void }> = [];
  private seq = 0;
  closed: { code: number; reason: string } | undefined;
  private closeWaiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw)) as Reply;
      const i = this.waiters.findIndex((w) => w.match(m));
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
      else this.messages.push(m);
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      for (const w of this.closeWaiters) w();
    });
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<ModClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const client = new ModClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  /** The next message matching `match` (already received or future). */
  next(match: (m: Reply) => boolean = () => true, timeoutMs = 5000): Promise<Reply> {
    const i = this.messages.findIndex(match);
    if (i >= 0) return Promise.resolve(this.messages.splice(i, 1)[0]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching message in time')), timeoutMs);
      this.waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** Sends a command and waits for its reply (result or error). */
  request(type: string, data?: unknown): Promise<Reply> {
    const id = `r${++this.seq}`;
    this.ws.send(JSON.stringify(data === undefined ? { type, id } : { type, id, data }));
    return this.next((m) => m.id === id);
  }

  /** Waits for the server to close the socket. */
  waitClose(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket not closed in time')), timeoutMs);
      this.closeWaiters.push(() => (clearTimeout(timer), resolve(this.closed!)));
    });
  }

  close(): void {
    this.ws.close();
  }
}

type Tag = { type: string; value: unknown };
const str = (value: string): Tag => ({ type: 'string', value });
const comp = (value: Record<string, Tag>): Tag => ({ type: 'compound', value });

function bytes(item: Record<string, Tag>): string {
  const root = { type: 'compound', name: '', value: { i: { type: 'list', value: { type: 'compound', value: [item] } } } };
  return gzipSync(nbt.writeUncompressed(root as never, 'big')).toString('base64');
}

/** A legacy (1.8 layout) item: Hyperion with a reforge, stars and an enchantment. */
export function legacyHyperion(): string {
  return bytes({
    id: { type: 'short', value: 267 },
    Count: { type: 'byte', value: 1 },
    Damage: { type: 'short', value: 0 },
    tag: comp({
      display: comp({ Name: str('§dHeroic Hyperion §6✪✪✪✪✪'), Lore: { type: 'list', value: { type: 'string', value: ['§7Damage: §c+260', '§d§lMYTHIC DUNGEON SWORD'] } } }),
      ExtraAttributes: comp({
        id: str('HYPERION'),
        modifier: str('heroic'),
        upgrade_level: { type: 'int', value: 5 },
        enchantments: comp({ ultimate_wise: { type: 'int', value: 5 } }),
        uuid: str('0b9b7f5e-1234-4abc-9def-aabbccddeeff'),
      }),
    }),
  });
}

/** A 1.21 data-component item: a stack of 3 Enchanted Diamonds. */
export function componentDiamonds(): string {
  return bytes({
    id: str('minecraft:diamond'),
    count: { type: 'int', value: 3 },
    components: comp({
      'minecraft:custom_data': comp({ id: str('ENCHANTED_DIAMOND') }),
      'minecraft:custom_name': str('{"text":"Enchanted Diamond","color":"green","italic":false}'),
    }),
  });
}
