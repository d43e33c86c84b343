/**
 * `npm run build`, after tsc: the pages' browser assets (fingerprinted) and templates beside the
 * compiled server, so `npm start` serves them without a bundler (src/web/assets.ts).
 * Usage: `build-web.ts [out dir]` (default dist/web; the CLI tests build into a scratch dist).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleClient } from '../src/web/assets.ts';

const src = join(import.meta.dirname, '..', 'src', 'web');
const out = process.argv[2] ?? join(import.meta.dirname, '..', 'dist', 'web');
rmSync(join(out, 'assets'), { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
const files = await bundleClient(src);
const manifest: Record<string, string> = {};
for (const f of files) {
  writeFileSync(join(out, 'assets', f.name), f.contents);
  manifest[f.name.replace(/-[A-Z0-9]+(?=\.[a-z]+$)/, '')] = f.name;
}
writeFileSync(join(out, 'assets', 'manifest.json'), JSON.stringify(manifest, null, 2));
cpSync(join(src, 'templates'), join(out, 'templates'), { recursive: true });
console.log(`web assets: ${Object.values(manifest).join(', ')}`);
