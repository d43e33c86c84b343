/**
 * The rules of the house (docs/architecture.md; DESIGN section 3), checked in `npm test` by
 * `npm run rules`. Data moves one way: upstream → ingest → store → market → services → faces
 * (api/, web/, stream/). A rule's comment is what a failing import is told.
 */
const IO_MODULES = '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|child_process|worker_threads|cluster|tls|readline)$';
// Resolved, a package's path is under node_modules (here often through the shared install's symlink): the
// bare names alone matched only unresolved imports, so these rules never fired on the real tree.
const SQL_MODULES = '(^|/)node_modules/(kysely|pg|better-sqlite3)/|^(kysely|pg|better-sqlite3)$';
const NETWORK_CLIENTS = '(^|/)node_modules/undici/|^(undici|node:https|https)$';
const FACES = '^src/(api|web|stream)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ is pure computation: it imports only domain/ (and gamedata/ types), not even types from the layers above.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: ['^src/domain/', '^src/gamedata/'] },
    },
    {
      name: 'domain-is-pure',
      comment: 'domain/ is pure computation: from gamedata/ it imports types (and the pure gamedata/types.ts) only; the data tables are handed in.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/gamedata/', pathNot: '^src/gamedata/types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-no-io',
      comment: 'domain/ is pure computation: no file system, network, processes or threads.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: IO_MODULES },
    },
    {
      name: 'sql-only-in-store',
      comment: 'Only store/ speaks SQL: ask a repository (src/store/repositories/) instead of importing a database driver.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: SQL_MODULES, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'upstream-only-in-ingest',
      comment:
        'Only ingest/ (and the gamedata sync command) call out to the network; the export jobs post to the webhooks users configured. A request never calls upstream: queue the work for ingest and read the store.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/ingest/', '^src/gamedata/sync\\.ts$', '^src/jobs/'] },
      to: { path: NETWORK_CLIENTS },
    },
    {
      name: 'faces-not-on-each-other',
      comment: 'api/, web/ and stream/ are three faces over the same services: one never imports another.',
      severity: 'error',
      from: { path: '^src/(api|web|stream)/' },
      to: { path: '^src/(api|web|stream)/', pathNot: '^src/$1/' },
    },
    {
      name: 'faces-over-services',
      comment: 'A face (api/, web/, stream/) reaches the data through services/: never store/, ingest/, simulator/ or jobs/ directly (types excepted).',
      severity: 'error',
      from: { path: FACES },
      to: { path: '^src/(store|ingest|simulator|jobs)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'faces-without-store',
      comment:
        'A face (api/, web/, stream/) does not import store/, not even its types: the records a face shows live in domain/ (domain/auction-records.ts, domain/export-jobs.ts). mod/ is exempt while its commands write through the store.',
      severity: 'error',
      from: { path: FACES },
      to: { path: '^src/store/' },
    },
    {
      name: 'web-client-in-browser',
      comment: 'src/web/client/ runs in the browser: it imports npm packages and its own modules only, never server code or Node built-ins.',
      severity: 'error',
      from: { path: '^src/web/client/' },
      to: { pathNot: ['^src/web/client/', 'node_modules/'] },
    },
    {
      name: 'web-client-in-browser',
      comment: 'src/web/client/ runs in the browser: no Node built-ins.',
      severity: 'error',
      from: { path: '^src/web/client/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'stream-over-services',
      comment:
        'stream/ (the live feeds) reads the market\'s events through services/ (services/stream.ts): it never imports store/, ingest/, market/, api/ or web/, not even their types.',
      severity: 'error',
      from: { path: '^src/stream/' },
      to: { path: '^src/(store|ingest|market|simulator|jobs|api|web)/' },
    },
    {
      name: 'mod-channel-apart',
      comment: 'mod/ is the mod\'s socket channel; the HTTP faces and mod/ reach shared work through services/, never each other (app.ts registers both).',
      severity: 'error',
      from: { path: '^src/(api|web|stream|mod)/' },
      to: { path: '^src/(api|web|stream|mod)/', pathNot: '^src/$1/' },
    },
    {
      name: 'store-not-upward',
      comment: 'store/ is below everything that reads it: it never imports http/, market/, services/, the faces, mod/ or jobs/.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(http|market|services|api|web|stream|mod|jobs|ingest)/' },
    },
    {
      name: 'market-not-upward',
      comment: 'market/ holds views: no HTTP, no faces, no services above it.',
      severity: 'error',
      from: { path: '^src/market/' },
      to: { path: '^src/(http|services|api|web|stream|mod)/|^fastify' },
    },
    {
      name: 'market-reads-only',
      comment:
        'market/ views only read the store: rollups, the lowest-BIN record and every other write run in jobs/ (the jobs leader) or ingest/, which market/ never imports, not even their types.',
      severity: 'error',
      from: { path: '^src/market/' },
      to: { path: '^src/(jobs|ingest)/' },
    },
    {
      name: 'no-redis-in-services',
      comment:
        'services/ are transport-free use cases: Redis (rate-limit counters, bans, the live feeds\' shared stream) is reached through http/limits.ts and store/event-log.ts, never ioredis directly.',
      severity: 'error',
      from: { path: '^src/services/' },
      // Resolved, an npm package is its path under node_modules (through the shared install's symlink too).
      to: { path: '(^|/)node_modules/ioredis/|^ioredis$' },
    },
    {
      name: 'services-not-upward',
      comment: 'services/ are transport-free use cases: no faces, no HTTP plugins, no Fastify.',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/(api|web|stream|mod)/|^fastify' },
    },
    {
      name: 'ingest-not-upward',
      comment: 'ingest/ writes the store; it never reads the market, the services or the faces.',
      severity: 'error',
      from: { path: '^src/ingest/' },
      to: { path: '^src/(http|market|services|api|web|stream|mod)/' },
    },
    {
      name: 'views-follow-the-spine',
      comment:
        'market/ views follow the spine through its interface (spine/index.ts, spine/follower.ts): they never pick a transport (spine/redis.ts, spine/process.ts) nor talk to Redis; runtime.ts and app.ts choose the transport by role.',
      severity: 'error',
      from: { path: '^src/market/' },
      to: { path: ['^src/spine/(redis|process)\\.ts$', '^ioredis$', 'node_modules/ioredis/'] },
    },
    {
      name: 'spine-not-upward',
      comment: 'spine/ carries committed changes from the store to the views: it never imports the market, services, HTTP, the faces, ingest or jobs.',
      severity: 'error',
      from: { path: '^src/spine/' },
      to: { path: '^src/(http|market|services|api|web|stream|mod|jobs|ingest)/' },
    },
    {
      name: 'no-circular',
      comment: 'Modules do not import each other in a circle (a sign two concepts share one module).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
