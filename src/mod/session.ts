/**
 * One mod connection: authentication, message validation, per-connection rate limit and
 * backpressure. Messages are handled one at a time in arrival order; while the queue is
 * full or the client is not reading its replies, the session stops reading from the
 * socket (TCP backpressure), so a slow or hostile client holds at most
 * `LIMITS.queue × LIMITS.frameBytes` of input and `LIMITS.bufferedBytes` of output.
 * A bad message gets an `error` reply; it never closes the session (or any other).
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Clock } from '../clock.ts';
import type { AccountIdentity } from '../http/access.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { HANDLERS, ModError } from './commands.ts';
import { describeErrors, envelope, isCommand, LIMITS, validators, type CommandName } from './messages.ts';
import { Bucket } from '../domain/token-bucket.ts';
import type { AlertSink, ModAlertChannel } from './alerts.ts';

export interface SessionDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** called when the session is done, for the connection count */
  onClose?: () => void;
  /** asked when a session authenticates: why the account may not open another session, or undefined */
  admit?: (account: AccountIdentity) => string | undefined;
  /** the account's IN_GAME alerts (mod/alerts.ts): the session registers once authenticated */
  alerts?: ModAlertChannel;
}

type Outgoing = { type: string; id?: string | number | undefined; command?: string; data?: unknown; code?: string; message?: string; [k: string]: unknown };


export class ModSession implements AlertSink {
  private account: AccountIdentity | null;
  private leaveAlerts: (() => void) | undefined;
  private readonly queue: Array<{ raw: Buffer; binary: boolean }> = [];
  private busy = false;
  private paused = false;
  private refusals = 0;
  private closed = false;
  private readonly bucket: Bucket;
  private authTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: SessionDeps,
    account: AccountIdentity | null,
  ) {
    this.account = account;
    // The bucket measures durations on the monotonic timer, not the injectable (calendar) clock,
    // which may stand still in tests, nor wall time, which may jump.
    this.bucket = new Bucket(LIMITS.burst, LIMITS.perSecond, performance.now());
    ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[], binary: boolean) => this.receive(toBuffer(raw), binary));
    ws.on('close', () => this.finish());
    ws.on('error', (err) => {
      deps.logger.debug({ err: err.message }, 'mod socket error');
      this.finish();
    });
    if (account) {
      this.send({ type: 'welcome', data: { accountId: account.id, authenticated: true } });
      this.leaveAlerts = deps.alerts?.add(account.id, this);
    } else {
      this.send({ type: 'welcome', data: { authenticated: false, authWithinSeconds: LIMITS.authSeconds } });
      this.authTimer = setTimeout(() => {
        if (!this.account) this.close(1008, 'authentication timeout');
      }, LIMITS.authSeconds * 1000);
      this.authTimer.unref();
    }
  }

  private receive(raw: Buffer, binary: boolean): void {
    if (this.closed) return;
    const wait = this.bucket.take(performance.now());
    if (wait > 0) {
      this.refusals++;
      if (this.refusals > LIMITS.maxRefusals) return this.close(1008, 'rate limit exceeded repeatedly');
      this.send({ type: 'error', code: 'rate_limited', message: `Too many messages: at most ${LIMITS.perSecond} per second (bursts of ${LIMITS.burst}).`, retryAfterMs: wait });
      return;
    }
    this.queue.push({ raw, binary });
    this.updateFlow();
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const next = this.queue.shift()!;
        this.updateFlow();
        const reply = await this.handle(next.raw, next.binary);
        this.send(reply);
      }
    } finally {
      this.busy = false;
    }
  }

  /** Stops reading from the socket while the queue is full or replies are not being read. */
  private updateFlow(): void {
    const socket = (this.ws as unknown as { _socket?: Duplex })._socket;
    if (!socket) return;
    const congested = this.queue.length >= LIMITS.queue || this.ws.bufferedAmount > LIMITS.bufferedBytes;
    if (congested && !this.paused) {
      this.paused = true;
      socket.pause();
    } else if (!congested && this.paused) {
      this.paused = false;
      socket.resume();
    }
  }

  private async handle(raw: Buffer, binary: boolean): Promise<Outgoing> {
    if (binary) return { type: 'error', code: 'invalid_message', message: 'Send JSON text frames, not binary.' };
    if (raw.length > LIMITS.messageBytes) {
      return { type: 'error', code: 'too_large', message: `A message may have at most ${LIMITS.messageBytes} bytes; this one had ${raw.length}.` };
    }
    let message: unknown;
    try {
      message = JSON.parse(raw.toString('utf8'));
    } catch {
      return { type: 'error', code: 'malformed_json', message: 'The message is not JSON.' };
    }
    if (!envelope.Check(message)) {
      return { type: 'error', code: 'invalid_message', message: 'A message is an object { type, id?, data? }.', errors: describeErrors(envelope, message, 'message') };
    }
    const { type, id } = message;
    const base = { id, command: type };
    if (!isCommand(type)) return { type: 'error', ...base, code: 'unknown_command', message: `Unknown command '${type}'.` };
    const data = message.data ?? {};
    const validator = validators[type];
    if (!validator.Check(data)) {
      return { type: 'error', ...base, code: 'invalid_message', message: `Invalid data for ${type}.`, errors: describeErrors(validator, data) };
    }
    try {
      if (type === 'auth') return await this.authenticate(base, (data as { token: string }).token);
      if (!this.account) return { type: 'error', ...base, code: 'unauthenticated', message: 'Send auth { token } first (an account token).' };
      const handler = HANDLERS[type as Exclude<CommandName, 'auth'>] as (ctx: unknown, data: unknown) => Promise<unknown>;
      const result = await handler({ store: this.deps.store, clock: this.deps.clock, account: this.account }, data);
      return { type: 'result', ...base, data: result };
    } catch (err) {
      if (err instanceof ModError) return { type: 'error', ...base, code: err.code, message: err.message, ...err.extra };
      if (err instanceof RangeError) return { type: 'error', ...base, code: 'invalid_message', message: err.message };
      const reference = Math.random().toString(36).slice(2, 10);
      this.deps.logger.error({ err, command: type, reference }, 'mod command failed');
      return { type: 'error', ...base, code: 'internal_error', message: `The command failed on the server; reference ${reference}.` };
    }
  }

  private async authenticate(base: { id: string | number | undefined; command: string }, token: string): Promise<Outgoing> {
    if (this.account) return { type: 'error', ...base, code: 'already_authenticated', message: 'This session is already authenticated.' };
    const account = await this.deps.store.accounts.findByToken(token, this.deps.clock.now());
    if (!account) return { type: 'error', ...base, code: 'invalid_token', message: 'The token is not valid: unknown, malformed or revoked.' };
    const refused = this.deps.admit?.(account);
    if (refused) {
      // After the reply has gone out.
      setImmediate(() => this.close(1013, refused));
      return { type: 'error', ...base, code: 'too_many_sessions', message: `Refused: ${refused}. Close another session first.` };
    }
    this.account = account;
    if (this.authTimer) clearTimeout(this.authTimer);
    // After the reply: held alerts follow it.
    setImmediate(() => {
      if (!this.closed) this.leaveAlerts = this.deps.alerts?.add(account.id, this);
    });
    return { type: 'result', ...base, data: { accountId: account.id } };
  }

  /** A message the server pushes (an alert): resolves once the socket took the frame. */
  push(message: Record<string, unknown>): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed || this.ws.readyState !== this.ws.OPEN) return reject(new Error('the session is closed'));
      this.ws.send(JSON.stringify(message), (err) => {
        this.updateFlow();
        if (err) reject(err);
        else resolve();
      });
      this.updateFlow();
    });
  }

  private send(message: Outgoing): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify(message), () => this.updateFlow());
    this.updateFlow();
  }

  private close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.leaveAlerts?.();
    if (this.authTimer) clearTimeout(this.authTimer);
    this.deps.onClose?.();
  }
}

function toBuffer(raw: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  if (Array.isArray(raw)) return Buffer.concat(raw);
  return Buffer.from(raw);
}
