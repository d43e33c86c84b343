// Preloaded (--import) into every test process when `run-tests.mjs --timings` is given: at exit it
// appends one JSON line to $TEST_TIMINGS_FILE with the process's wall time and CPU time, its own and
// that of the child processes it waited for (the CLI's builds, spawned servers, Chromium), read from
// /proc/self/stat. Only the test files' processes (bundles under $TEST_TIMINGS_FILE's directory) and the
// runner's checks (named by $TEST_TIMING_NAME) record: not the node:test parent, not worker threads, not
// a process a test starts with the same flags (its CPU is in its parent's children time already).
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const file = process.env.TEST_TIMINGS_FILE;
const name = process.env.TEST_TIMING_NAME;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** Own and waited-for children's CPU seconds: fields 14–17 of /proc/self/stat (after the command name). */
function procCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map((v) => Number(v) / TICKS_PER_SECOND);
    return { utime, stime, cutime, cstime };
  } catch {
    return undefined; // not Linux: the own CPU from process.cpuUsage() still counts
  }
}

const entry = name ?? process.argv[1] ?? '';
if (file && isMainThread && (name !== undefined || entry.startsWith(dirname(file)))) {
  // A check's own children (npm, tsc) are counted in its children time, not as rows of their own.
  delete process.env.TEST_TIMING_NAME;
  delete process.env.TEST_TIMINGS_FILE;
  process.on('exit', () => {
    const own = process.cpuUsage();
    const proc = procCpu();
    const line = {
      entry,
      wallS: process.uptime(),
      userS: own.user / 1e6,
      sysS: own.system / 1e6,
      childrenS: proc ? proc.cutime + proc.cstime : 0,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  });
}
