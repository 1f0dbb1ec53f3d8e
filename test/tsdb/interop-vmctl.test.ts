// vmctl 1.79.5 (Debian package "victoria-metrics") migrates a Prometheus snapshot into tsdb. A real
// Prometheus 2.42 scrapes a small target every second; its admin API takes a snapshot (head
// included); `vmctl prometheus --prom-snapshot=… --vm-addr=<tsdb>` reads the snapshot's blocks and
// imports them. Every sample Prometheus' own query API shows must come back from tsdb with the same
// labels, timestamp and value bits.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { getJson, labelsKey, post } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, requireBinary, startBinary, startTsdb } from './harness.ts';
import { freePort, namesOf, storedSamples, writeScrapeConfig } from './interop.ts';
import { floatBits } from './remote-write-recorder.ts';
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

it('imports a Prometheus snapshot with vmctl, every sample exact', { timeout: 90_000 }, async () => {
  const prometheus = requireBinary('prometheus', 'prometheus');
  const vmctl = requireBinary('vmctl', 'victoria-metrics');
  const script = requireBinary('script', 'bsdutils');
  const dir = await makeTempDir('vmctl');
  const tsdb = await startTsdb(join(dir, 'tsdb'));
  const target = await startScrapeTarget();
  closers.push(target.close);
  const config = await writeScrapeConfig(dir, target.address);
  const promData = join(dir, 'prom');
  await mkdir(promData);
  const port = await freePort();
  const prom = startBinary(prometheus, [
    `--config.file=${config}`, `--storage.tsdb.path=${promData}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-admin-api',
  ], dir);
  await prom.waitForOutput(/Server is ready to receive web requests/, 30_000);
  await expect.poll(() => target.scrapes(), { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(6);

  // Prometheus' view of every raw sample up to now; the snapshot taken right after holds these
  // and perhaps a scrape or two more.
  const viewTime = Date.now();
  const view = await getJson<PromMatrix>(`http://127.0.0.1:${port}/api/v1/query`, { query: '{__name__=~".+"}[1h]', time: String(viewTime / 1000) });
  expect(view.data.resultType).toBe('matrix');
  const snap = await post(`http://127.0.0.1:${port}/api/v1/admin/tsdb/snapshot`);
  expect(snap.status, snap.text).toBe(200);
  const snapshotDir = join(promData, 'snapshots', (JSON.parse(snap.text) as { data: { name: string } }).data.name);
  prom.kill('SIGTERM');
  expect(await prom.exited).toBe(0);

  // vmctl 1.79 starts its progress-bar pool even with --vm-disable-progress-bar and exits 1 without
  // a terminal ("inappropriate ioctl for device"): util-linux `script` gives it a pseudo-terminal.
  const vmctlArgs = ['prometheus', `--prom-snapshot=${snapshotDir}`, `--vm-addr=${tsdb.base}`, '-s', '--vm-disable-progress-bar'];
  const migrate = startBinary(script, ['-qefc', [vmctl, ...vmctlArgs].map(shellQuote).join(' '), '/dev/null'], dir);
  const code = await migrate.exited;
  expect(code, migrate.output()).toBe(0);
  expect(migrate.output()).toMatch(/Import finished!/);

  const stored = await storedSamples(tsdb.base);
  expect(namesOf(stored)).toEqual(expect.arrayContaining(['interop_requests_total', 'interop_temperature_celsius', 'up', 'scrape_duration_seconds']));
  const seen = new Set<string>();
  let checked = 0;
  for (const s of view.data.result) {
    expect(s.metric).toMatchObject({ job: 'interop', team: 'storage', instance: target.address });
    for (const [sec, v] of s.values) {
      const key = `${labelsKey(s.metric)}@${Math.round(sec * 1000)}`;
      expect(stored.get(key)?.bits, key).toBe(floatBits(Number(v)));
      seen.add(key);
      checked++;
    }
  }
  expect(checked).toBeGreaterThanOrEqual(6 * 5);
  // Nothing else up to the view's time, except Prometheus' staleness markers, which its query API
  // hides and a snapshot holds (vmctl sends them as NaN).
  const extra = [...stored.entries()].filter(([key, s]) => s.timestamp <= viewTime && !seen.has(key) && !Number.isNaN(bitsValue(s.bits)));
  expect(extra.map(([key]) => key)).toEqual([]);
  // The series the target dropped after its third scrape ends with that marker, sent as a bare NaN.
  expect([...stored.values()].filter((s) => Number.isNaN(bitsValue(s.bits))).map((s) => s.labels.code)).toContain('500');
});

const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function bitsValue(bits: bigint): number {
  const v = new DataView(new ArrayBuffer(8));
  v.setBigUint64(0, bits);
  return v.getFloat64(0);
}
