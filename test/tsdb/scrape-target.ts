// A small scrape target for the interop tests: a node:http server whose /metrics holds a counter
// and a gauge with a few labels, changing on every scrape (fractional values, so exactness shows).
// One series (code="500") disappears after the third scrape, so scrapers write a staleness marker.

import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';

/** ScrapeTarget is a running target; address is `127.0.0.1:<port>` for static_configs. */
export interface ScrapeTarget {
  readonly address: string;
  /** scrapes counts the /metrics requests served. */
  scrapes(): number;
  close(): Promise<void>;
}

/** startScrapeTarget serves /metrics in the Prometheus text format on 127.0.0.1:0. */
export async function startScrapeTarget(): Promise<ScrapeTarget> {
  let n = 0;
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    n++;
    const body = [
      '# HELP interop_requests_total Requests handled, by path and code.',
      '# TYPE interop_requests_total counter',
      `interop_requests_total{path="/api",code="200"} ${n * 3}`,
      ...(n <= 3 ? [`interop_requests_total{path="/api",code="500"} ${n / 4}`] : []),
      `interop_requests_total{path="/health",code="200"} ${n * 1.5}`,
      '# HELP interop_temperature_celsius A gauge that wanders.',
      '# TYPE interop_temperature_celsius gauge',
      `interop_temperature_celsius{room="kitchen",floor="1"} ${(21 + Math.sin(n) * 2.125).toString()}`,
      `interop_temperature_celsius{room="cellar",floor="-1"} ${(12.75 - n / 64).toString()}`,
      '',
    ].join('\n');
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    scrapes: () => n,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
