/**
 * `npm run bench`: runs every benchmark module and prints one table.
 * `npm run bench -- --quick` for short smoke runs; `npm run bench -- http decode` to pick modules.
 */
import { readdirSync } from 'node:fs';
import { keepTickObjectShape } from '../src/tick-shape.ts';
import { formatNumber, type BenchModule, type BenchRow } from './lib.ts';

// The benches that build the app in this process measure it as the serving process runs it
// (src/runtime.ts holds a tick object; buildApp leaves that to its caller).
keepTickObjectShape();

const NOT_BENCHES = new Set(['run.ts', 'lib.ts', 'harness.ts']);
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.filter((a) => !a.startsWith('--'));

const modules = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.ts') && !NOT_BENCHES.has(f))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const rows: Array<BenchRow & { bench: string }> = [];
for (const file of modules) {
  const started = Date.now();
  process.stderr.write(`running ${file}…\n`);
  const mod = (await import(`./${file}`)) as BenchModule;
  for (const row of await mod.run({ quick })) rows.push({ bench: file.replace(/\.ts$/, ''), ...row });
  process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const date = new Date().toISOString().slice(0, 10);
console.log(`\nskymarket benchmarks, ${date}${quick ? ' (quick)' : ''}, node ${process.version}\n`);
console.log('| bench | what | figure | ratio | notes |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  const ratio = r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}× ${r.baseline ?? ''}`.trim();
  console.log(`| ${r.bench} | ${r.name} | ${formatNumber(r.figure)} ${r.unit} | ${ratio} | ${r.notes ?? ''} |`);
}
