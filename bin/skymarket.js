#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, resolved relative to this package.
import { setFlagsFromString } from 'node:v8';
import { register } from 'tsx/esm/api';

// SKYMARKET_OPTIMIZE_FOR_SIZE=1: V8 grows the old generation less eagerly and keeps a smaller
// young generation. Under load the heap otherwise runs to several times the live data before
// a full collection (60,000 auctions: ~130 MB live, ~750 MB RSS); with it ~350 MB, at some CPU
// cost not measured on a quiet machine yet. Set before anything is loaded (NODE_OPTIONS refuses it).
if (process.env.SKYMARKET_OPTIMIZE_FOR_SIZE === '1') setFlagsFromString('--optimize-for-size');

register();
await import('../src/cli.ts');
