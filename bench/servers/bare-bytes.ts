/**
 * Benchmark baseline: a bare node:http server answering every request with the bytes of a file
 * (argv[2]), optionally as `Content-Encoding: argv[3]` (precompressed bytes): the floor for
 * answers that are not text, or that go out compressed. With argv[4], a JSON file of header
 * lines, it sends exactly those (and the length) instead: the same bytes on the wire as the
 * answer it copies, headers included.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.argv[2] ?? '');
const encoding = process.argv[3] || undefined;
const headerFile = process.argv[4];
const headers: Record<string, string | number> = headerFile
  ? { ...(JSON.parse(readFileSync(headerFile, 'utf8')) as Record<string, string>), 'content-length': body.length }
  : { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
if (encoding && !headerFile) headers['content-encoding'] = encoding;
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address) process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
