/**
 * The `skymarket` command: serve | migrate | simulate (more commands arrive with the areas that own them).
 * Flags override environment variables; see the README for every setting.
 */
import { Command, Option } from 'commander';
import closeWithGrace from 'close-with-grace';
import { ConfigError, LOG_LEVELS, ROLES, loadConfig, type ConfigOverrides } from './config.ts';
import { createLogger } from './logger.ts';
import { startRuntime } from './runtime.ts';
import { simulatorOptionsFromEnv, startSimulator } from './simulator/index.ts';
import { Store } from './store/index.ts';
import { VERSION } from './version.ts';

interface CommonFlags {
  dataDir?: string;
  databaseUrl?: string;
  logLevel?: string;
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
  .action(async (flags: ServeFlags) => {
    const config = loadConfig(process.env, overrides(flags));
    const logger = createLogger(config.logLevel);
    const runtime = await startRuntime(config, { logger });
    closeWithGrace({ delay: config.shutdownGraceSeconds * 1000 }, async ({ signal, err }) => {
      if (err) logger.error({ err }, 'fatal error, shutting down');
      else logger.info({ signal }, 'shutting down gracefully');
      await runtime.close();
    });
  });

withStorageFlags(program.command('migrate').description('apply pending database migrations and exit')).action(
  async (flags: CommonFlags) => {
    const config = loadConfig(process.env, overrides(flags));
    const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, migrate: false });
    try {
      const result = await store.migrate();
      const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
      console.log(
        applied.length
          ? `applied ${applied.length} migration(s) to ${store.location}: ${applied.join(', ')}`
          : `${store.location} is up to date`,
      );
    } finally {
      await store.close();
    }
  },
);

program
  .command('simulate')
  .description('run the built-in market simulator: a fake Hypixel API (simulated data) to use as UPSTREAM_URL')
  .option('--port <port>', 'HTTP port (SIM_PORT, default: any free port)')
  .option('--host <host>', 'listen address (SIM_HOST, default 127.0.0.1)')
  .addOption(new Option('--log-level <level>', 'log level (LOG_LEVEL, default info)').choices([...LOG_LEVELS]))
  .action(async (flags: { port?: string; host?: string; logLevel?: string }) => {
    const env = { ...process.env, ...(flags.port ? { SIM_PORT: flags.port } : {}), ...(flags.host ? { SIM_HOST: flags.host } : {}) };
    const options = simulatorOptionsFromEnv(env);
    const logger = createLogger(loadConfig(process.env, { logLevel: flags.logLevel }).logLevel);
    const simulator = await startSimulator(options, { logger });
    logger.info({ url: simulator.url, auctions: options.auctions, seed: options.seed }, `simulator listening on ${simulator.url} (simulated data)`);
    closeWithGrace({ delay: 5000 }, async () => {
      await simulator.close();
    });
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
    role: flags.role,
    demo: flags.demo,
  };
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // Operator mistakes get one clear line, not a stack trace.
  const message = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  console.error(`skymarket: ${message}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
