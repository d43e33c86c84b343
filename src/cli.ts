/**
 * The `skymarket` command: serve | migrate | simulate | accounts | keys | partners | alerts (more arrive with their areas).
 * Flags override environment variables; see docs/configuration.md for every setting.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { Command, Option } from 'commander';
import closeWithGrace from 'close-with-grace';
import { ConfigError, LOG_FORMATS, LOG_LEVELS, ROLES, loadConfig, type ConfigOverrides } from './config.ts';
import { createLogger, prettyDestination, prettyLogs, type Logger } from './logger.ts';
import { ALLOCATOR_TUNABLES, allocatorSetting, glibcVersion, heapPlan, type HeapPlan } from './heap.ts';
import type { CloseMessage, ServeWorkerData } from './serve-worker.ts';
import { simulatorOptionsFromEnv } from './simulator/config.ts';
import { VERSION } from './version.ts';
import { registerAuthCommands } from './auth-admin.ts';
import { registerModCommands } from './mod/admin.ts';
import { registerAlertCommands } from './alerts-admin.ts';
import { systemClock } from './clock.ts';
import type { Store } from './store/index.ts';

interface CommonFlags {
  dataDir?: string;
  databaseUrl?: string;
  logLevel?: string;
  logFormat?: string;
}

interface ServeFlags extends CommonFlags {
  port?: string;
  host?: string;
  redisUrl?: string;
  upstreamUrl?: string;
  role?: string;
  trustProxy?: string;
  demo?: boolean;
}

const program = new Command()
  .name('skymarket')
  .description('Market data service for Hypixel SkyBlock')
  .version(VERSION)
  .showHelpAfterError();

function logFormatOption(): Option {
  return new Option('--log-format <format>', 'log lines: auto (readable on a terminal, JSON otherwise), json or pretty (LOG_FORMAT, default auto)').choices([
    ...LOG_FORMATS,
  ]);
}

function withStorageFlags(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'directory for the SQLite database and exports (DATA_DIR, default ./data)')
    .option('--database-url <url>', 'postgres:// URL; unset = embedded SQLite (DATABASE_URL)')
    .addOption(new Option('--log-level <level>', 'log level (LOG_LEVEL, default info)').choices([...LOG_LEVELS]));
}

withStorageFlags(program.command('serve').description('run the service (API, ingestion and jobs by role)'))
  .option('--port <port>', 'HTTP port (PORT, default 8080)')
  .option('--host <host>', 'listen address (HOST, default 0.0.0.0)')
  .option('--redis-url <url>', 'redis:// URL for shared rate limits and caches (REDIS_URL)')
  .option('--upstream-url <url>', 'Hypixel API base URL (UPSTREAM_URL)')
  .option('--trust-proxy <value>', 'trust proxy headers: true, false, hop count or IP/CIDR list (TRUST_PROXY)')
  .addOption(new Option('--role <role>', 'which parts to run (ROLE, default all)').choices([...ROLES]))
  .option('--demo', 'use the built-in market simulator as the upstream (DEMO)')
  .addOption(logFormatOption())
  .action(async (flags: ServeFlags) => {
    const config = loadConfig(process.env, overrides(flags));
    const pretty = prettyLogs(config.logFormat, process.stdout.isTTY);
    const logger = createLogger(config.logLevel, pretty ? prettyDestination(1, process.stdout.isTTY === true) : undefined);
    const plan = heapPlan(config.heapMb, process.execArgv, process.env.NODE_OPTIONS, import.meta.url.endsWith('.js'));
    const allocator = allocatorSetting(process.env.GLIBC_TUNABLES, glibcVersion());
    if (allocator.kind === 'fixed threshold') logger.info({ GLIBC_TUNABLES: allocator.tunables }, 'the C allocator returns large blocks when freed (GLIBC_TUNABLES)');
    else if (allocator.kind === 'glibc default' && plan.kind === 'worker') {
      logger.info(`the C allocator keeps glibc's moving mmap threshold: GLIBC_TUNABLES=${ALLOCATOR_TUNABLES} (as \`npm start\` sets it) returns large freed blocks to the system (docs/deployment.md, Memory)`);
    }
    if (plan.kind === 'worker') {
      serveInWorker({ overrides: overrides(flags), pretty, colors: process.stdout.isTTY === true }, plan, config.shutdownGraceSeconds, logger);
      return;
    }
    const { startRuntime } = await import('./runtime.ts');
    const runtime = await startRuntime(config, { logger, ...(pretty ? { banner: (text: string) => process.stdout.write(text) } : {}) });
    closeWithGrace({ delay: config.shutdownGraceSeconds * 1000 }, async ({ signal, err }) => {
      if (err) logger.error({ err }, 'fatal error, shutting down');
      else logger.info({ signal }, 'shutting down gracefully');
      await runtime.close();
    });
  });

/**
 * Runs the service in a worker thread with a bounded old generation (heap.ts): the main thread
 * forwards SIGTERM/SIGINT as a graceful close and exits with the worker's code. A worker that
 * dies (an error, or its heap exhausted) ends the process with code 1, as a crash would.
 */
function serveInWorker(data: ServeWorkerData, limits: Extract<HeapPlan, { kind: 'worker' }>, graceSeconds: number, logger: Logger): void {
  const { maxOldGenerationSizeMb, maxYoungGenerationSizeMb } = limits;
  logger.info({ maxOldGenerationSizeMb, maxYoungGenerationSizeMb }, `the service runs in a worker thread with a ${maxOldGenerationSizeMb} MB old generation (SKYMARKET_HEAP_MB)`);
  const worker = new Worker(new URL('./serve-worker.js', import.meta.url), { workerData: data, resourceLimits: { maxOldGenerationSizeMb, maxYoungGenerationSizeMb } });
  let failed = false;
  worker.on('error', (err) => {
    failed = true;
    logger.fatal({ err, maxOldGenerationSizeMb }, 'the service stopped on an error');
  });
  worker.on('exit', (code) => process.exit(failed ? 1 : code));
  closeWithGrace({ delay: graceSeconds * 1000 }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'fatal error, shutting down');
    const message: CloseMessage = { type: 'close', signal };
    worker.postMessage(message);
    await once(worker, 'exit');
  });
}

withStorageFlags(program.command('migrate').description('apply pending database migrations and exit')).action(
  async (flags: CommonFlags) => {
    const config = loadConfig(process.env, overrides(flags));
    const { Store, createdDatabase } = await import('./store/index.ts');
    const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrate: false });
    try {
      const result = await store.migrate();
      const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
      console.log(
        applied.length
          ? `applied ${applied.length} migration(s) to ${store.location}${createdDatabase(result) ? ' (a new database)' : ''}: ${applied.join(', ')}`
          : `${store.location} is up to date`,
      );
    } finally {
      await store.close();
    }
  },
);

/**
 * Runs an operator command against the store the flags (or DATA_DIR / DATABASE_URL) select.
 * The first line says which database that is, so a token created in the wrong one (another
 * DATA_DIR than the server's) is noticed at once; a database this command had to create is
 * pointed out on stderr.
 */
async function withStore(flags: CommonFlags, action: (store: Store, now: number) => Promise<string[]>): Promise<void> {
  const config = loadConfig(process.env, overrides(flags));
  const { Store, createdDatabase } = await import('./store/index.ts');
  const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrate: false });
  try {
    const migrated = await store.migrate();
    console.log(`database: ${store.location}`);
    if (createdDatabase(migrated)) {
      console.error(
        `skymarket: note: ${store.location} held no skymarket database, so this command created one. ` +
          'A server started with another DATA_DIR or DATABASE_URL does not see it: pass the server\'s --data-dir or --database-url.',
      );
    }
    for (const line of await action(store, systemClock.now())) console.log(line);
  } finally {
    await store.close();
  }
}

registerAuthCommands(program, withStorageFlags, (flags, action) => withStore(flags as CommonFlags, action));
registerModCommands(program, withStorageFlags, (flags, action) => withStore(flags as CommonFlags, action));
registerAlertCommands(program, withStorageFlags, (flags, action) => withStore(flags as CommonFlags, action), () => loadConfig(process.env));

program
  .command('simulate')
  .description('run the built-in market simulator: a fake Hypixel API (simulated data) to use as UPSTREAM_URL')
  .option('--port <port>', 'HTTP port (SIM_PORT, default: any free port)')
  .option('--host <host>', 'listen address (SIM_HOST, default 127.0.0.1)')
  .addOption(new Option('--log-level <level>', 'log level (LOG_LEVEL, default info)').choices([...LOG_LEVELS]))
  .addOption(logFormatOption())
  .action(async (flags: { port?: string; host?: string; logLevel?: string; logFormat?: string }) => {
    const env = { ...process.env, ...(flags.port ? { SIM_PORT: flags.port } : {}), ...(flags.host ? { SIM_HOST: flags.host } : {}) };
    const options = simulatorOptionsFromEnv(env);
    const config = loadConfig(process.env, { logLevel: flags.logLevel, logFormat: flags.logFormat });
    const pretty = prettyLogs(config.logFormat, process.stdout.isTTY);
    const logger = createLogger(config.logLevel, pretty ? prettyDestination(1, process.stdout.isTTY === true) : undefined);
    const { startSimulator } = await import('./simulator/index.ts');
    const simulator = await startSimulator(options, { logger });
    logger.info({ url: simulator.url, auctions: options.auctions, seed: options.seed }, `simulator listening on ${simulator.url} (simulated data)`);
    closeWithGrace({ delay: 5000 }, async () => {
      await simulator.close();
    });
  });

const gamedata = program.command('gamedata').description('game data: items, recipes and tables from a NotEnoughUpdates repository');
gamedata
  .command('sync')
  .description('download the NEU repository archive (GAME_DATA_URL), verify it and unpack it into DATA_DIR/gamedata')
  .option('--data-dir <dir>', 'directory for the database and synced game data (DATA_DIR, default ./data)')
  .option('--url <url>', 'archive URL (.tar.gz; GAME_DATA_URL, default the NEU repository on GitHub)')
  .option('--sha256 <hex>', 'expected SHA-256 of the archive')
  .option('--quiet', 'no progress bar')
  .action(async (flags: { dataDir?: string; url?: string; sha256?: string; quiet?: boolean }) => {
    const config = loadConfig(process.env, { dataDir: flags.dataDir, gameDataUrl: flags.url });
    const { syncGameData, progressLine } = await import('./gamedata/sync.ts');
    const tty = process.stderr.isTTY && !flags.quiet;
    let lastPrinted = 0;
    const result = await syncGameData({
      url: config.gameDataUrl,
      dataDir: config.dataDir,
      sha256: flags.sha256,
      onProgress: flags.quiet
        ? undefined
        : (received, total) => {
            const now = Date.now();
            if (now - lastPrinted < 200 && received !== total) return;
            lastPrinted = now;
            process.stderr.write(tty ? `\r${progressLine(received, total)}` : `${progressLine(received, total)}\n`);
          },
    });
    if (tty) process.stderr.write('\n');
    console.log(`game data synced to ${result.path}: ${result.items} items, ${result.recipes} recipes (${result.bytes} bytes, sha256 ${result.sha256})`);
    if (config.gameDataDir) console.log(`note: GAME_DATA_DIR=${config.gameDataDir} is set and takes precedence over the synced copy`);
  });
gamedata
  .command('info')
  .description('show which game data source the service would load and what it holds')
  .option('--data-dir <dir>', 'directory for synced game data (DATA_DIR, default ./data)')
  .action(async (flags: { dataDir?: string }) => {
    const config = loadConfig(process.env, { dataDir: flags.dataDir });
    const { loadGameData } = await import('./gamedata/index.ts');
    const data = loadGameData({ gameDataDir: config.gameDataDir, dataDir: config.dataDir });
    let recipes = 0;
    for (const list of data.recipes.values()) recipes += list.length;
    console.log(JSON.stringify({ source: data.source, items: data.items.size, recipes, unresolvedIngredients: data.unresolved.length }, null, 2));
  });

function overrides(flags: ServeFlags): ConfigOverrides {
  return {
    port: flags.port,
    host: flags.host,
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    redisUrl: flags.redisUrl,
    upstreamUrl: flags.upstreamUrl,
    trustProxy: flags.trustProxy,
    logLevel: flags.logLevel,
    logFormat: flags.logFormat,
    role: flags.role,
    demo: flags.demo,
  };
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Operator mistakes get one clear line, not a stack trace (and a hint on a second line when there is one).
  const message = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  console.error(`skymarket: ${message}`);
  const hint = (err as { hint?: unknown } | null)?.hint;
  if (typeof hint === 'string') console.error(`hint: ${hint}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
