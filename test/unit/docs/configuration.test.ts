/**
 * The configuration table says what the code does: every variable config.ts reads is documented,
 * with the default the code applies (the README once said UPSTREAM_TIMEOUT_MS defaulted to 30000
 * while the code used 15000).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULTS, ENV_NAMES, INGEST_INTERVALS, loadConfig, type Config } from '../../../src/config.ts';
import { DEFAULT_HEAP_MB } from '../../../src/heap.ts';

const ROOT = join(import.meta.dirname, '../../..');
const CONFIGURATION_DOC = 'docs/configuration.md';

/** `| \`NAME\` | default cell | …` rows of every table in the document: name → the default as written. */
function documentedDefaults(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const match of markdown.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/gm)) {
    const cell = match[2]!.trim();
    rows.set(match[1]!, /^`([^`]*)`/.exec(cell)?.[1] ?? cell);
  }
  return rows;
}

/** A config value as the table writes it. */
function written(value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'unset';
  if (Array.isArray(value)) return value.join(',');
  return String(value);
}

describe('configuration documentation', () => {
  const documented = documentedDefaults(readFileSync(join(ROOT, CONFIGURATION_DOC), 'utf8'));
  const defaults = loadConfig({});
  // Where the default is not the parsed value itself.
  const expected: Partial<Record<keyof Config, string>> = { dataDir: DEFAULTS.dataDir, heapMb: String(DEFAULT_HEAP_MB) };
  // Written in words rather than as the literal value.
  const inWords = new Set<keyof Config>(['gameDataUrl']);

  for (const [key, name] of Object.entries(ENV_NAMES) as Array<[keyof Config, string]>) {
    if (key === 'ingestIntervals') continue;
    it(`${name} is documented with the code's default`, () => {
      assert.ok(documented.has(name), `${name} is not in ${CONFIGURATION_DOC}`);
      if (inWords.has(key)) return;
      assert.equal(documented.get(name), expected[key] ?? written(defaults[key]), `${name}'s default in ${CONFIGURATION_DOC}`);
    });
  }

  it('every INGEST_*_SECONDS is documented with its default', () => {
    for (const [name, seconds] of Object.values(INGEST_INTERVALS)) assert.equal(documented.get(name), String(seconds), name);
  });
});
