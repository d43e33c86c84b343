// A node:test reporter that writes one line per failed test (its file, its path of suite names,
// the first lines of its error) to its destination. scripts/run-tests.mjs adds it beside the TAP
// output and prints what it wrote after the run, so the end of a long log names every failure.
export default async function* failures(source) {
  const suites = [];
  for await (const event of source) {
    if (event.type === 'test:start') {
      suites[event.data.nesting] = event.data.name;
      suites.length = event.data.nesting + 1;
    }
    if (event.type !== 'test:fail') continue;
    const { name, nesting, file, details } = event.data;
    // A suite fails when a test in it does; its own line would repeat that test's.
    if (details?.type === 'suite') continue;
    const path = [...suites.slice(0, nesting), name].join(' > ');
    const error = details?.error;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? 'failed').split('\n').slice(0, 6).join('\n    ');
    yield `${file ?? '?'}\n  ${path}\n    ${message}\n`;
  }
}
