/**
 * Benchmark target: the real skymarket app on an existing data directory (argv[2]). Prints its URL once the active-auctions view is loaded;
 * with BENCH_IN_PROCESS_FLOOR=1, first the URL of a bare listener in the same process (in-process-floor.ts).
 */
import { serveBenchApp, THROUGHPUT_ENV } from './serve-app.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: auctions-app.ts <data dir>');
await serveBenchApp({ env: THROUGHPUT_ENV, dataDir: dir, dataSource: 'simulator', inProcessFloor: process.env.BENCH_IN_PROCESS_FLOOR === '1' });
