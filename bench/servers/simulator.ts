/** Benchmark upstream: the built-in simulator (SIM_* variables) in its own process. Prints its URL. */
import { simulatorOptionsFromEnv, startSimulator } from '../../src/simulator/index.ts';

const simulator = await startSimulator(simulatorOptionsFromEnv({ ...process.env, SIM_BACKFILL: '0' }));
process.stdout.write(`${simulator.url}\n`);
process.on('SIGTERM', () => void simulator.close().then(() => process.exit(0)));
