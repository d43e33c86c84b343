import { readFileSync } from 'node:fs';

/** skymarket's version, from package.json (read once at start). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The interface version: all paths sit under /api without a version segment. */
export const API_VERSION = 'v1';
