/**
 * The browser assets of the pages (src/web/client/): bundled from npm packages with esbuild,
 * fingerprinted by content hash, compressed once and served from memory with immutable caching.
 *
 * `npm run build` writes them beside the compiled server (dist/web/assets/, scripts/build-web.ts)
 * so `npm start` needs no bundler. Run from source (the demo and tests through tsx) there is no
 * such folder: the bundle is built in memory on first use, once per process. Either way nothing
 * is fetched from outside: every byte comes from node_modules at build time.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  /** fingerprinted file name, e.g. main-3F2A1B.js */
  name: string;
  type: string;
  raw: Buffer;
  gzip: Buffer;
  brotli: Buffer;
}

export interface AssetSet {
  /** logical name (main.js, main.css) → fingerprinted name */
  manifest: Record<string, string>;
  byName: Map<string, Asset>;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** prebuilt assets beside the compiled module (dist/web/assets) */
export const PREBUILT_DIR = join(HERE, 'assets');
/** the client entry points, relative to this module's folder in the source tree */
export const CLIENT_ENTRIES = ['client/main.ts', 'client/main.css', 'client/feed-worker.ts', 'client/alerts.ts'];

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** Bundles the client with esbuild into files named `[name]-[hash]`. `sourceDir` is src/web. */
export async function bundleClient(sourceDir: string): Promise<Array<{ name: string; contents: Uint8Array }>> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: CLIENT_ENTRIES.map((e) => join(sourceDir, e)),
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    outdir: '/virtual-out',
    entryNames: '[name]-[hash]',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    metafile: false,
  });
  return result.outputFiles.map((f) => ({ name: basename(f.path), contents: f.contents }));
}

function toAssets(files: Array<{ name: string; contents: Uint8Array }>): AssetSet {
  const manifest: Record<string, string> = {};
  const byName = new Map<string, Asset>();
  for (const f of files) {
    const ext = extname(f.name);
    const type = TYPES[ext];
    if (!type) continue;
    const raw = Buffer.from(f.contents);
    const logical = f.name.replace(/-[A-Z0-9]+(?=\.[a-z]+$)/, '');
    manifest[logical] = f.name;
    byName.set(f.name, {
      name: f.name,
      type,
      raw,
      gzip: gzipSync(raw, { level: 9 }),
      brotli: brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    });
  }
  for (const name of ['main.js', 'main.css', 'feed-worker.js', 'alerts.js']) if (!manifest[name]) throw new Error(`web assets: ${name} missing`);
  return { manifest, byName };
}

let loading: Promise<AssetSet> | undefined;

/** The assets: the prebuilt folder when there is one, else bundled in memory (once per process). */
export function loadAssets(): Promise<AssetSet> {
  loading ??= (async () => {
    if (existsSync(join(PREBUILT_DIR, 'manifest.json'))) {
      const files = readdirSync(PREBUILT_DIR)
        .filter((n) => n !== 'manifest.json')
        .map((name) => ({ name, contents: readFileSync(join(PREBUILT_DIR, name)) }));
      return toAssets(files);
    }
    return toAssets(await bundleClient(HERE));
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}
