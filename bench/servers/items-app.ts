/** Benchmark target: the real app with the real NEU repository as its game data (the full item catalog). Prints its URL. */
import { neuRepo } from '../../test/helpers/fixtures.ts';
import { serveBenchApp, THROUGHPUT_ENV } from './serve-app.ts';

await serveBenchApp({ env: { ...THROUGHPUT_ENV, GAME_DATA_DIR: neuRepo() } });
