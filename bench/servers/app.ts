/** Benchmark target: the real skymarket app on a throwaway SQLite store. Prints its URL. */
import { serveBenchApp, THROUGHPUT_ENV } from './serve-app.ts';

await serveBenchApp({ env: THROUGHPUT_ENV });
