import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger/index.ts';
import { addExtraLabels, checkExtraLabel, startPushMetrics } from './push.ts';

describe('addExtraLabels', () => {
  it('adds labels to every sample line and leaves comments alone', () => {
    const f = (text: string, want: string) => expect(addExtraLabels(text, ['job="a"', 'dc="x"'])).toBe(want);
    f('# HELP m help\nm 1\n', '# HELP m help\nm{job="a",dc="x"} 1\n');
    f('m{l="v"} 1', 'm{job="a",dc="x",l="v"} 1');
    f('m{} 1', 'm{job="a",dc="x"} 1');
    f('m{l="a b {}"} 2 1700000000000', 'm{job="a",dc="x",l="a b {}"} 2 1700000000000');
  });

  it('checks the name="value" shape', () => {
    expect(checkExtraLabel('job="x"')).toBe('job="x"');
    expect(() => checkExtraLabel('job=x')).toThrow(/must look like name="value"/);
    expect(() => checkExtraLabel('1a="x"')).toThrow();
  });
});

describe('startPushMetrics', () => {
  const stops: Array<() => void> = [];
  afterEach(() => stops.splice(0).forEach((s) => s()));

  it('POSTs the rendered text with extra labels to every URL each interval, surviving a failing URL', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(`${req.method} ${req.url} ${req.headers['content-type']} ${body}`);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    stops.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const logs: string[] = [];
    const { logger, stop } = createLogger({
      format: 'default', level: 'INFO', jsonFields: {}, timezone: 'UTC', disableTimestamps: true,
      errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: (l) => logs.push(l),
    });
    stops.push(stop);
    stops.push(startPushMetrics({
      urls: [`http://127.0.0.1:${port}/api/v1/import/prometheus`, 'http://127.0.0.1:1/unreachable'],
      intervalMs: 100, extraLabels: ['instance="a"'], render: async () => 'up 1\n', logger,
    }));
    // Two pushes at a 100 ms interval; waited for rather than slept on, so a busy machine cannot fail it.
    await expect.poll(() => bodies.length, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => logs.some((l) => l.includes('cannot push metrics to "http://127.0.0.1:1/unreachable"')), { timeout: 10_000, interval: 50 }).toBe(true);
    expect(bodies[0]).toBe('POST /api/v1/import/prometheus text/plain; version=0.0.4 up{instance="a"} 1\n');
    expect(logs.some((l) => l.includes('cannot push metrics to "http://127.0.0.1:1/unreachable"'))).toBe(true);
  });
});
