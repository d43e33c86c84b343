/**
 * Benchmark baseline: a bare node:http server answering every request with the bytes of a file
 * (argv[2]), optionally as `Content-Encoding: argv[3]` (precompressed bytes): the floor for
 * answers that are not text, or that go out compressed.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.argv[2] ?? '');
const encoding = process.argv[3];
const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
if (encoding) headers['content-encoding'] = encoding;
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address) process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
