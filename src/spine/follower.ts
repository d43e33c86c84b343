/**
 * A view that follows the spine (a projection): it loads its state from the store once, remembers
 * the sequence number that state reflects, then applies each change in order. A hole (a jump in
 * the sequence, a trimmed stream, a transport that was away, a writer that lost changes) makes it
 * resynchronise from the store, which holds every committed change: one log line, one count in
 * `skymarket_spine_resyncs_total`, and `behind` set (health warns) until the reload is in.
 */
import type { Logger } from '../logger.ts';
import { follows, type HoleReason, type MarketChange } from '../domain/market-change.ts';
import type { ChangeSource, SpineEvent } from './index.ts';

export interface Projection {
  /** Loads the store's current state (every change up to the head read just before is in the store). */
  load(): Promise<void>;
  /** Applies one change; changes committed during a load may come again after it (apply is idempotent). */
  apply(change: MarketChange): void;
}

/** One follower's state, as health and the metrics read it. */
export interface FollowerState {
  name: string;
  /** the last sequence number applied */
  seq: number;
  /** why the follower knows it is behind the store (undefined: it is not) */
  behind: string | undefined;
  behindSince: number | undefined;
  /** resynchronisations by reason */
  resyncs: Partial<Record<HoleReason, number>>;
}

/** Every follower of a process: what /api/health and /metrics read. */
export class Followers {
  readonly all: FollowerState[] = [];

  add(name: string): FollowerState {
    const state: FollowerState = { name, seq: 0, behind: undefined, behindSince: undefined, resyncs: {} };
    this.all.push(state);
    return state;
  }

  /** Followers that know they are behind the store, with why and since when. */
  behind(): FollowerState[] {
    return this.all.filter((f) => f.behind !== undefined);
  }

  /** Resynchronisations of every follower. */
  resyncCount(): number {
    let n = 0;
    for (const f of this.all) for (const k in f.resyncs) n += f.resyncs[k as HoleReason] ?? 0;
    return n;
  }
}

export interface FollowerOptions {
  name: string;
  source: ChangeSource;
  projection: Projection;
  followers: Followers;
  now: () => number;
  logger?: Logger | undefined;
}

/** How a view follows the spine: the change source (default: the store's, in this process), where it reports, its log. */
export interface ViewFollowing {
  changes?: ChangeSource | undefined;
  followers?: Followers | undefined;
  logger?: Logger | undefined;
}

/** A view's follower, with the defaults every view uses: the store's own changes and a registry of its own. */
export function viewFollower(name: string, projection: Projection, defaults: { changes: ChangeSource; now: () => number }, following: ViewFollowing): Follower {
  return new Follower({
    name,
    source: following.changes ?? defaults.changes,
    projection,
    followers: following.followers ?? new Followers(),
    now: defaults.now,
    logger: following.logger,
  });
}

export class Follower {
  readonly state: FollowerState;
  private unsubscribe: (() => void) | undefined;
  private loading: Promise<void> | undefined;
  private buffered: MarketChange[] = [];
  private started: Promise<void> | undefined;
  /** set while the transport is away: a resync follows once it is back */
  private away = false;
  /** a hole found while a load was under way: that load may have read the head before it, so another follows */
  private holeDuringLoad: HoleReason | undefined;

  constructor(private readonly options: FollowerOptions) {
    this.state = options.followers.add(options.name);
  }

  /** Subscribes, loads the store's state, then applies what arrived meanwhile. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.markBehind('loading');
      await this.load(async () => {
        const head = await this.options.source.head();
        this.unsubscribe = this.options.source.subscribe(head, (event) => this.on(event));
        return head;
      });
    })();
    return this.started;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.started = undefined;
  }

  private on(event: SpineEvent): void {
    if (event.type === 'unavailable') {
      if (!this.away) {
        this.away = true;
        this.markBehind(`the change stream is unavailable (${event.error})`);
        this.options.logger?.warn({ follower: this.state.name, err: event.error }, 'spine: change stream unavailable; this view stops following until it is back');
      }
      return;
    }
    if (event.type === 'restored') {
      this.away = false;
      void this.resync(event.reason);
      return;
    }
    const change = event.change;
    if (this.loading) {
      this.buffered.push(change);
      return;
    }
    this.take(change);
  }

  private take(change: MarketChange): void {
    if (change.seq <= this.state.seq && change.kind !== 'lost') return; // already in the state
    if (change.kind === 'lost') return void this.resync('writer-lost', change.seq);
    if (!follows(this.state.seq, change.seq)) return void this.resync('seq-jump', change.seq);
    try {
      this.options.projection.apply(change);
      this.state.seq = change.seq;
    } catch (err) {
      this.options.logger?.error({ err, follower: this.state.name, seq: change.seq }, 'spine: a change could not be applied');
      void this.resync('malformed', change.seq);
    }
  }

  /** Reloads from the store (hole found): counted and logged once per resync. */
  private resync(reason: HoleReason, seen?: number): Promise<void> {
    if (this.loading) {
      // The load under way may have read the head before the hole (a stream that restarted empty
      // numbers from 1 again, below that head): load once more after it.
      this.holeDuringLoad = reason;
      return this.loading;
    }
    this.state.resyncs[reason] = (this.state.resyncs[reason] ?? 0) + 1;
    this.options.logger?.warn(
      { follower: this.state.name, reason, applied: this.state.seq, seen },
      `spine: ${this.state.name} resynchronises from the store (${reason})`,
    );
    this.markBehind(`resynchronising from the store (${reason})`);
    return this.load(() => this.options.source.head()).catch((err: unknown) => {
      this.options.logger?.error({ err, follower: this.state.name }, 'spine: resynchronisation failed; retried at the next change');
      this.state.seq = -1; // the next change is a hole: retry then
    });
  }

  /**
   * Reads the head (the changes up to it are in the store), loads the projection, then applies the
   * changes that arrived meanwhile. Changes are buffered from the moment this is called.
   */
  private async load(readHead: () => Promise<number>): Promise<void> {
    this.buffered = [];
    const loading = (async () => {
      const head = await readHead();
      await this.options.projection.load();
      this.state.seq = head;
    })();
    this.loading = loading;
    try {
      await loading;
    } finally {
      this.loading = undefined;
    }
    const hole = this.holeDuringLoad;
    this.holeDuringLoad = undefined;
    if (hole !== undefined) return this.resync(hole);
    if (!this.away) this.clearBehind();
    const pending = this.buffered;
    this.buffered = [];
    for (const change of pending) this.take(change);
  }

  private markBehind(why: string): void {
    if (this.state.behind === undefined) this.state.behindSince = this.options.now();
    this.state.behind = why;
  }

  private clearBehind(): void {
    this.state.behind = undefined;
    this.state.behindSince = undefined;
  }
}
