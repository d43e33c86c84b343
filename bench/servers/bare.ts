/** Benchmark baseline: a bare node:http server answering every request with fixed JSON bytes. */
import { createServer } from 'node:http';

const body = Buffer.from(process.argv[2] ?? '{}');
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address) process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
