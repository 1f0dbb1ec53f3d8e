// Prometheus 2.42 (Debian package "prometheus") scrapes a small target every second and
// remote-writes to tsdb and to a recorder. Everything it sent must come back from tsdb exactly
// (labels, timestamps, value bits), and agree with Prometheus' own answer for metric[5m]; the
// metric metadata it sends (HELP and TYPE of the target) must be what its /api/v1/metadata says.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { STALE_NAN_BITS } from '../../src/lib/storageapi/index.ts';
import { getJson, labelsKey } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, requireBinary, startBinary, startTsdb } from './harness.ts';
import { diffSamples, freePort, namesOf, storedSamples, writeScrapeConfig } from './interop.ts';
import { floatBits, startRecorder } from './remote-write-recorder.ts';
import { startScrapeTarget } from './scrape-target.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await killAll();
  for (const c of closers.splice(0)) await c();
});
afterAll(removeTempDirs);

interface PromMatrix {
  data: { resultType: string; result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
}

it('stores exactly what Prometheus remote-writes', { timeout: 60_000 }, async () => {
  const bin = requireBinary('prometheus', 'prometheus');
  const dir = await makeTempDir('prom');
  const tsdb = await startTsdb(join(dir, 'tsdb'));
  const target = await startScrapeTarget();
  const recorder = await startRecorder();
  closers.push(target.close, recorder.close);
  const queue = '    queue_config: { batch_send_deadline: 500ms, min_backoff: 50ms, max_backoff: 500ms }';
  const config = await writeScrapeConfig(dir, target.address, [
    'remote_write:',
    `  - url: ${tsdb.base}/api/v1/write`,
    queue,
    '    metadata_config: { send: true, send_interval: 1s }',
    `  - url: ${recorder.url}`,
    queue,
  ].join('\n'));
  await mkdir(join(dir, 'prom'));
  const port = await freePort();
  const prom = startBinary(bin, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'prom')}`, `--web.listen-address=127.0.0.1:${port}`], dir);
  await prom.waitForOutput(/Server is ready to receive web requests/, 30_000);
  await expect.poll(() => target.scrapes(), { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(6);

  // Prometheus' own view, before it stops: every raw sample of the last 5 minutes.
  const promView = await getJson<PromMatrix>(`http://127.0.0.1:${port}/api/v1/query`, { query: '{__name__=~"interop_.+"}[5m]', time: String(Date.now() / 1000) });
  expect(promView.data.resultType).toBe('matrix');
  expect(promView.data.result).toHaveLength(5);
  // The metadata Prometheus scraped reaches tsdb through remote write, as Prometheus serves it.
  for (const metric of ['interop_requests_total', 'interop_temperature_celsius']) {
    const want = await getJson(`http://127.0.0.1:${port}/api/v1/metadata`, { metric });
    expect(want).toMatchObject({ status: 'success', data: { [metric]: [expect.objectContaining({ help: expect.any(String) })] } });
    await expect.poll(() => getJson(`${tsdb.base}/api/v1/metadata`, { metric }), { timeout: 10_000, interval: 200 }).toEqual(want);
  }

  // A graceful stop flushes the remote-write queues (and may add staleness markers): after it, both
  // endpoints have received everything.
  prom.kill('SIGTERM');
  expect(await prom.exited).toBe(0);
  expect(recorder.failures).toEqual([]);
  const sent = recorder.samples;
  const stored = await storedSamples(tsdb.base);
  expect(namesOf(sent)).toEqual(expect.arrayContaining(['interop_requests_total', 'interop_temperature_celsius', 'up', 'scrape_duration_seconds']));
  expect(sent.size).toBeGreaterThan(50);
  // The series the target dropped ends with Prometheus' staleness marker.
  expect([...sent.values()].filter((s) => s.bits === STALE_NAN_BITS).map((s) => s.labels.code)).toContain('500');
  expect(diffSamples(sent, stored)).toEqual({ missing: [], extra: [], changed: [] });

  // Cross-check against Prometheus' API: its samples are in tsdb with the same timestamps and values.
  let checked = 0;
  for (const s of promView.data.result) {
    expect(s.metric).toMatchObject({ job: 'interop', team: 'storage', instance: target.address });
    for (const [sec, v] of s.values) {
      const got = stored.get(`${labelsKey(s.metric)}@${Math.round(sec * 1000)}`);
      expect(got?.bits, `${JSON.stringify(s.metric)} at ${sec}`).toBe(floatBits(Number(v)));
      checked++;
    }
  }
  expect(checked).toBeGreaterThanOrEqual(5 * 5);
});
