/**
 * Keeps the hidden class of Node's tick objects alive, so `process.nextTick` stays fast.
 *
 * `process.nextTick` builds each queued callback as an object literal with computed keys
 * (`{ [async_id_symbol], [trigger_async_id_symbol], callback, args }`). V8 remembers the
 * hidden classes those stores go through only weakly. When no tick object is alive across a few
 * full garbage collections, the classes are collected. That happens while the market loads
 * 60,000 listings at start-up, or in any heavy synchronous stretch. The next tick object then gets
 * fresh classes; after a few rounds the stores' inline caches are megamorphic for good, and every
 * tick pays three runtime calls. Node's HTTP server queues several ticks per request (parser,
 * stream resume and destroy, response finish): measured on the bench app, that added ~3 µs of
 * CPU to every request, any route (docs/performance.md, 2026-11-27).
 *
 * Holding one tick object keeps its class chain alive. The holder is refreshed every second, so
 * a class V8 replaces (a field widened from small integer to double) is held too.
 * Started by the serving process (src/runtime.ts), not by buildApp. The check that reproduces the
 * collapse and shows that this prevents it reads V8's own feedback: `npm run bench -- tick-shape`
 * (bench/tick-shape.ts).
 */
import { executionAsyncResource } from 'node:async_hooks';

const REFRESH_MS = 1_000;

let held: object | undefined;
let refresh: NodeJS.Timeout | undefined;

/** Inside a tick's callback the current async resource is the tick object itself. */
function holdCurrentTick(): void {
  held = executionAsyncResource();
}

/**
 * Starts holding a tick object in this isolate (a worker thread has its own); call it before
 * the heavy start-up work. Idempotent; the timer does not keep the process alive.
 */
export function keepTickObjectShape(): void {
  if (refresh !== undefined) return;
  process.nextTick(holdCurrentTick);
  refresh = setInterval(() => process.nextTick(holdCurrentTick), REFRESH_MS);
  refresh.unref();
}

/** The tick object held now (tests). */
export function heldTickObject(): object | undefined {
  return held;
}
