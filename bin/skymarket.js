#!/usr/bin/env node
// The `skymarket` command. In a checkout installed with its dev dependencies (`npm ci`) it runs
// the TypeScript sources through tsx, so it is always the current code. Installed for production
// (`npm ci --omit=dev`, no tsx) it runs the compiled build, dist/cli.js, which `npm run build` makes.
import { existsSync } from 'node:fs';

let tsx;
try {
  tsx = await import('tsx/esm/api');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
}
if (tsx) {
  tsx.register();
  await import('../src/cli.ts');
} else if (existsSync(new URL('../dist/cli.js', import.meta.url))) {
  await import('../dist/cli.js');
} else {
  console.error('skymarket: no compiled build (dist/cli.js) and no tsx to run the sources: run `npm run build` (needs `npm ci` with dev dependencies) first');
  process.exit(1);
}
