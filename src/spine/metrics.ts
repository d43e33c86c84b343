/** The spine's figures on /metrics: followers behind, their resynchronisations, listings loaded from the store. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Followers } from './follower.ts';
import type { HoleReason } from '../domain/market-change.ts';

export function registerSpineMetrics(registry: Registry, followers: Followers, listingsLoaded: () => number, failedPublishes: () => number): void {
  new Gauge({
    name: 'skymarket_spine_behind',
    help: '1 while a view knows it is behind the store (loading, resynchronising, change stream unavailable), by follower',
    labelNames: ['follower'],
    registers: [registry],
    collect() {
      for (const f of followers.all) this.set({ follower: f.name }, f.behind === undefined ? 0 : 1);
    },
  });
  new Gauge({
    name: 'skymarket_spine_seq',
    help: 'The sequence number of the last market change a view applied, by follower',
    labelNames: ['follower'],
    registers: [registry],
    collect() {
      for (const f of followers.all) this.set({ follower: f.name }, f.seq);
    },
  });
  new Counter({
    name: 'skymarket_spine_resyncs_total',
    help: 'Resynchronisations of a view from the store after a hole in the market change stream, by follower and reason',
    labelNames: ['follower', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const f of followers.all) {
        for (const reason of Object.keys(f.resyncs) as HoleReason[]) this.inc({ follower: f.name, reason }, f.resyncs[reason] ?? 0);
      }
    },
  });
  new Counter({
    name: 'skymarket_market_listings_loaded_total',
    help: 'Active listings the active-auctions view read from the store (its first load and resynchronisations)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(listingsLoaded());
    },
  });
  new Counter({
    name: 'skymarket_spine_publish_failures_total',
    help: 'Market changes this process could not publish to the Redis stream (its followers elsewhere resynchronise)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(failedPublishes());
    },
  });
}
