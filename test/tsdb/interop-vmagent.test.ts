// vmagent 1.79.5 (Debian package "victoria-metrics") scrapes a small target every second and
// remote-writes to tsdb and to a recorder. What it sent must come back from tsdb exactly (labels,
// timestamps, value bits). vmagent keeps unsent data in its on-disk queue when stopped, so the
// comparison covers every sample up to a cutoff both endpoints have certainly moved past.

import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { STALE_NAN_BITS } from '../../src/lib/storageapi/index.ts';
import { killAll, makeTempDir, removeTempDirs, requireBinary, sleep, startBinary, startTsdb } from './harness.ts';
import { diffSamples, freePort, namesOf, storedSamples, writeScrapeConfig } from './interop.ts';
import { startRecorder } from './remote-write-recorder.ts';
import { startScrapeTarget } from './scrape-target.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await killAll();
  for (const c of closers.splice(0)) await c();
});
afterAll(removeTempDirs);

it('stores exactly what vmagent remote-writes', { timeout: 60_000 }, async () => {
  const bin = requireBinary('vmagent', 'victoria-metrics');
  const dir = await makeTempDir('vmagent');
  const tsdb = await startTsdb(join(dir, 'tsdb'));
  const target = await startScrapeTarget();
  const recorder = await startRecorder();
  closers.push(target.close, recorder.close);
  const config = await writeScrapeConfig(dir, target.address);
  const agent = startBinary(bin, [
    `-promscrape.config=${config}`,
    `-remoteWrite.url=${tsdb.base}/api/v1/write`,
    `-remoteWrite.url=${recorder.url}`,
    `-remoteWrite.tmpDataPath=${join(dir, 'vmagent-queue')}`,
    '-remoteWrite.flushInterval=200ms',
    `-httpListenAddr=127.0.0.1:${await freePort()}`,
  ], dir);
  await agent.waitForOutput(/static_configs: added targets: 1/, 30_000);
  await expect.poll(() => target.scrapes(), { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(6);
  const cutoff = Date.now();
  // Both endpoints must hold every sample scraped up to the cutoff; a sample newer than it seen by
  // both shows their queues have moved past it.
  const newest = (m: Map<string, { timestamp: number }>) => Math.max(0, ...[...m.values()].map((s) => s.timestamp));
  await expect.poll(async () => newest(await storedSamples(tsdb.base)) > cutoff && newest(recorder.samples) > cutoff, { timeout: 15_000, interval: 250 }).toBe(true);
  // Give a straggling batch of either queue time to land, then compare up to the cutoff.
  await sleep(1_000);
  const stored = await storedSamples(tsdb.base);
  const sent = recorder.samples;
  expect(recorder.failures).toEqual([]);
  expect(namesOf(sent)).toEqual(expect.arrayContaining(['interop_requests_total', 'interop_temperature_celsius', 'up', 'scrape_duration_seconds']));
  expect([...sent.values()].filter((s) => s.timestamp <= cutoff).length).toBeGreaterThan(40);
  expect([...sent.values()].filter((s) => s.labels.__name__ === 'interop_requests_total').every((s) => s.labels.job === 'interop' && s.labels.team === 'storage' && s.labels.instance === target.address)).toBe(true);
  // The series the target dropped ends with a staleness marker (vmagent writes them as Prometheus does).
  expect([...sent.values()].filter((s) => s.bits === STALE_NAN_BITS).map((s) => s.labels.code)).toContain('500');
  expect(diffSamples(sent, stored, cutoff)).toEqual({ missing: [], extra: [], changed: [] });
  agent.kill('SIGTERM');
  expect(await agent.exited).toBe(0);
});
