#!/usr/bin/env node
// Runs every test file under test/ with node:test through tsx.
// Node 20's `node --test dir/` does not pick up .ts files, so the files are listed explicitly.
// Usage: node scripts/run-tests.mjs [substring filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = collect('test').filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error(`no test files matched ${filters.join(' ')}`);
  process.exit(1);
}
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', ...files];
const child = spawn(process.execPath, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
