// vmalert 1.79.5 (Debian package "victoria-metrics") evaluates a recording rule and an alerting rule
// against tsdb's query API every second, writes the results back through remote write and notifies
// a stand-in Alertmanager. The recorded series, ALERTS and ALERTS_FOR_STATE must come back from
// tsdb's query API with the values vmalert computed; a second vmalert then restores the alert's
// state from tsdb (its `default_rollup(ALERTS_FOR_STATE{…}[…])` query) and keeps the first one's
// activeAt.

import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { getJson, post } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, requireBinary, startBinary, startTsdb } from './harness.ts';
import { freePort } from './interop.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await killAll();
  for (const c of closers.splice(0)) await c();
});
afterAll(removeTempDirs);

const RULES = `groups:
  - name: interop
    interval: 1s
    rules:
      - record: interop:requests:sum
        expr: sum by (path) (interop_requests_total)
      - alert: InteropHot
        expr: interop_temperature_celsius > 20
        for: 1s
        labels:
          severity: page
        annotations:
          summary: "{{ $labels.room }} is at {{ $value }} degrees"
`;

interface Vector {
  data: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
}
interface VmalertAlerts {
  data: { alerts: Array<{ name: string; state: string; activeAt: string; labels: Record<string, string>; annotations: Record<string, string> }> };
}
interface Notified {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
}

/** startAlertmanager is a stand-in for Alertmanager's v2 API that records the alerts it is sent. */
async function startAlertmanager(): Promise<{ url: string; alerts: Notified[] }> {
  const alerts: Notified[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/api/v2/alerts') alerts.push(...(JSON.parse(Buffer.concat(chunks).toString()) as Notified[]));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, alerts };
}

const byLabel = (rows: Vector['data']['result'], name: string) => Object.fromEntries(rows.map((r) => [r.metric[name], r]));

it('evaluates vmalert rules against tsdb and reads back the recorded series, ALERTS and ALERTS_FOR_STATE', { timeout: 90_000 }, async () => {
  const bin = requireBinary('vmalert', 'victoria-metrics');
  const dir = await makeTempDir('vmalert');
  const tsdb = await startTsdb(join(dir, 'tsdb'));
  const am = await startAlertmanager();
  const rules = join(dir, 'rules.yml');
  await writeFile(rules, RULES);

  // Inputs, a few seconds old so every evaluation finds them within the 5-minute lookback.
  const ts = Date.now() - 5_000;
  const input = [
    `interop_requests_total{path="/api",code="200"} 3 ${ts}`,
    `interop_requests_total{path="/api",code="500"} 0.25 ${ts}`,
    `interop_requests_total{path="/health",code="200"} 1.5 ${ts}`,
    `interop_temperature_celsius{room="kitchen",floor="1"} 22.125 ${ts}`,
    `interop_temperature_celsius{room="cellar",floor="-1"} 12.75 ${ts}`,
  ].join('\n');
  expect((await post(`${tsdb.base}/api/v1/import/prometheus`, input)).status).toBe(204);

  const vmalertArgs = (port: number) => [
    `-rule=${rules}`, `-datasource.url=${tsdb.base}`, `-remoteWrite.url=${tsdb.base}`, '-remoteWrite.flushInterval=200ms',
    `-notifier.url=${am.url}`, '-evaluationInterval=1s', `-httpListenAddr=127.0.0.1:${port}`, '-loggerLevel=INFO',
  ];
  const port = await freePort();
  const first = startBinary(bin, vmalertArgs(port), dir);
  await first.waitForOutput(/starting http server at/, 30_000);

  const query = (q: string) => getJson<Vector>(`${tsdb.base}/api/v1/query`, { query: q });
  // The recorded series: vmalert's sums, written back with the group's label set.
  await expect.poll(async () => (await query('interop:requests:sum')).data.result.length, { timeout: 20_000, interval: 250 }).toBe(2);
  const recorded = byLabel((await query('interop:requests:sum')).data.result, 'path');
  expect(recorded['/api']?.value[1]).toBe('3.25');
  expect(recorded['/health']?.value[1]).toBe('1.5');
  expect(recorded['/api']?.metric).toEqual({ __name__: 'interop:requests:sum', path: '/api' });

  // The alert went pending, then firing; both states were written as ALERTS series.
  await expect.poll(async () => (await query('ALERTS{alertname="InteropHot",alertstate="firing"}')).data.result.length, { timeout: 20_000, interval: 250 }).toBe(1);
  const firing = (await query('ALERTS{alertname="InteropHot",alertstate="firing"}')).data.result[0]!;
  expect(firing.metric).toMatchObject({ __name__: 'ALERTS', alertname: 'InteropHot', alertstate: 'firing', room: 'kitchen', floor: '1', severity: 'page' });
  expect(firing.value[1]).toBe('1');
  const pending = await getJson<Vector>(`${tsdb.base}/api/v1/query`, { query: 'last_over_time(ALERTS{alertname="InteropHot",alertstate="pending"}[5m])' });
  expect(pending.data.result.map((r) => r.metric.room)).toEqual(['kitchen']);

  // ALERTS_FOR_STATE holds activeAt in seconds: the same instant vmalert reports.
  await expect.poll(async () => (await query('ALERTS_FOR_STATE{alertname="InteropHot"}')).data.result.length, { timeout: 20_000, interval: 250 }).toBe(1);
  const forState = (await query('ALERTS_FOR_STATE{alertname="InteropHot"}')).data.result[0]!;
  expect(forState.metric).toMatchObject({ __name__: 'ALERTS_FOR_STATE', alertname: 'InteropHot', room: 'kitchen', floor: '1', severity: 'page' });
  expect(forState.metric).not.toHaveProperty('alertstate');
  const api = await getJson<VmalertAlerts>(`http://127.0.0.1:${port}/api/v1/alerts`);
  expect(api.data.alerts).toHaveLength(1);
  const activeAt = Date.parse(api.data.alerts[0]!.activeAt);
  expect(Number(forState.value[1])).toBe(Math.floor(activeAt / 1000));
  expect(activeAt).toBeGreaterThan(ts);

  // The stand-in Alertmanager got the firing alert with its templated annotation.
  await expect.poll(() => am.alerts.length, { timeout: 10_000, interval: 100 }).toBeGreaterThan(0);
  expect(am.alerts.at(-1)).toMatchObject({ labels: { alertname: 'InteropHot', room: 'kitchen', severity: 'page' }, annotations: { summary: 'kitchen is at 22.125 degrees' } });

  first.kill('SIGTERM');
  expect(await first.exited).toBe(0);

  // A restarted vmalert restores the alert from tsdb: it fires at once, with the old activeAt.
  const port2 = await freePort();
  const second = startBinary(bin, [...vmalertArgs(port2), `-remoteRead.url=${tsdb.base}`], dir);
  await expect.poll(async () => {
    try {
      return (await getJson<VmalertAlerts>(`http://127.0.0.1:${port2}/api/v1/alerts`)).data.alerts.map((a) => `${a.state} ${Date.parse(a.activeAt)}`);
    } catch {
      return [];
    }
  }, { timeout: 20_000, interval: 250 }).toEqual([`firing ${Math.floor(activeAt / 1000) * 1000}`]);
  expect(second.output()).not.toMatch(/error.*restor|failed to restore/i);
  second.kill('SIGTERM');
  expect(await second.exited).toBe(0);
});
