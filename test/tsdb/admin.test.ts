// Admin routes of the tsdb process: delete_series, snapshots (response shapes, hard links, a
// snapshot is a usable data dir), force flush/merge, the auth keys of each, and the storage
// policies visible through export: -retentionPeriod and -dedup.minScrapeInterval.

import { cp, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, exportSeries, get, getJson, metricValue, post } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, startTsdb, type Tsdb } from './harness.ts';

// Two hours ago, aligned to a minute: inside the default retention (and the 2d one below).
const T0 = Math.floor((Date.now() - 2 * 3_600_000) / 60_000) * 60_000;

let tsdb: Tsdb;
beforeAll(async () => {
  tsdb = await startTsdb(await makeTempDir('admin'));
});
afterAll(async () => {
  await killAll();
  await removeTempDirs();
});

const load = async (t: Tsdb, text: string) => {
  const r = await post(`${t.base}/api/v1/import/prometheus`, text);
  expect(r.status, r.text).toBe(204);
};
const names = async (t: Tsdb, match: string) => (await exportSeries(t.base, match, { start: '0' })).map((s) => `${s.metric.__name__}/${s.metric.job ?? ''}`);

describe('/api/v1/admin/tsdb/delete_series', () => {
  it('deletes matching series for POST and PUT (also under /prometheus) with 204 and an empty body', async () => {
    await load(tsdb, [`del_a{job="x"} 1 ${T0}`, `del_a{job="y"} 2 ${T0}`, `del_b{job="x"} 3 ${T0}`, `del_c{job="z"} 4 ${T0}`].join('\n'));
    const r = await post(`${tsdb.base}/api/v1/admin/tsdb/delete_series`, 'match[]=del_a{job="x"}', { 'content-type': 'application/x-www-form-urlencoded' });
    expect({ status: r.status, body: r.text }).toEqual({ status: 204, body: '' });
    expect(await names(tsdb, '{__name__=~"del_.+"}')).toEqual(['del_a/y', 'del_b/x', 'del_c/z']);
    const put = await call('PUT', `${tsdb.base}/prometheus/api/v1/admin/tsdb/delete_series?match[]=del_b`);
    expect(put.status).toBe(204);
    expect(await names(tsdb, '{__name__=~"del_.+"}')).toEqual(['del_a/y', 'del_c/z']);
    // Gone from the index routes and queries too.
    const series = await getJson<{ data: Array<Record<string, string>> }>(`${tsdb.base}/api/v1/series`, { 'match[]': '{__name__=~"del_.+"}', start: String(T0 / 1000) });
    expect(series.data.map((s) => s.__name__).sort()).toEqual(['del_a', 'del_c']);
    // Writing the same labels again makes a new series.
    await load(tsdb, `del_b{job="x"} 5 ${T0 + 60_000}`);
    expect((await exportSeries(tsdb.base, 'del_b', { start: '0' })).map((s) => s.values)).toEqual([[5]]);
  });

  it('refuses GET, and a request without match[] with a plain-text 400', async () => {
    const g = await get(`${tsdb.base}/api/v1/admin/tsdb/delete_series?match[]=del_c`);
    expect(g.status).toBe(404);
    expect(await names(tsdb, 'del_c')).toEqual(['del_c/z']);
    const r = await post(`${tsdb.base}/api/v1/admin/tsdb/delete_series`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toContain('missing "match[]" arg');
  });
});

/** filesUnder lists every file below dir, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) out.push(relative(dir, join(e.parentPath, e.name)));
  return out.sort();
}

describe('snapshots', () => {
  it('create, list, delete and delete_all answer with the documented shapes', async () => {
    await load(tsdb, `snap_a 1 ${T0}`);
    const created = await getJson<{ status: string; snapshot: string }>(`${tsdb.base}/snapshot/create`);
    expect(created).toEqual({ status: 'ok', snapshot: expect.stringMatching(/^\d{14}-[0-9A-F]{16}$/) });
    const second = await (await post(`${tsdb.base}/snapshot/create`)).text;
    const name2 = (JSON.parse(second) as { snapshot: string }).snapshot;
    const list = await getJson(`${tsdb.base}/snapshot/list`);
    expect(list).toEqual({ status: 'ok', snapshots: [created.snapshot, name2].sort() });
    expect(await getJson(`${tsdb.base}/snapshot/delete`, { snapshot: created.snapshot })).toEqual({ status: 'ok' });
    expect(await getJson(`${tsdb.base}/snapshot/list`)).toEqual({ status: 'ok', snapshots: [name2] });
    // An unknown snapshot is 404, a name with path tricks 400, both {"status":"error","msg"}.
    expect(await getJson(`${tsdb.base}/snapshot/delete`, { snapshot: created.snapshot }, 404)).toEqual({ status: 'error', msg: `cannot find snapshot "${created.snapshot}"` });
    expect(await getJson(`${tsdb.base}/snapshot/delete`, { snapshot: '../data' }, 400)).toMatchObject({ status: 'error', msg: expect.stringContaining('invalid "snapshot" arg') });
    expect(await getJson(`${tsdb.base}/snapshot/delete_all`)).toEqual({ status: 'ok' });
    expect(await getJson(`${tsdb.base}/snapshot/list`)).toEqual({ status: 'ok', snapshots: [] });
    expect((await readdir(join(tsdb.dataDir, 'snapshots'))).filter((n) => !n.startsWith('.'))).toEqual([]);
  });

  it('hard-links the live part files, and a copy of a snapshot serves the data as of its creation', async () => {
    await load(tsdb, Array.from({ length: 50 }, (_, i) => `snap_b{i="${i}"} ${i * 1.5} ${T0 + i * 1000}`).join('\n'));
    // One merged set of parts, so no background merge replaces a live part under the test.
    expect((await post(`${tsdb.base}/internal/force_merge`)).status).toBe(200);
    const { snapshot } = await getJson<{ snapshot: string }>(`${tsdb.base}/snapshot/create`);
    const snapDir = join(tsdb.dataDir, 'snapshots', snapshot);
    const files = await filesUnder(snapDir);
    const partFiles = files.filter((f) => /^(data\/\d{4}_\d{2}|indexdb)\/[0-9a-f]{24}\//.test(f));
    expect(partFiles.length).toBeGreaterThan(0);
    expect(files.filter((f) => f.startsWith('wal/') || f === 'flock.lock')).toEqual([]);
    let compared = 0;
    for (const f of partFiles) {
      const [snap, live] = await Promise.all([stat(join(snapDir, f)), stat(join(tsdb.dataDir, f)).catch(() => undefined)]);
      // A background index merge may already have replaced a live index part; data parts stay (all merged above).
      if (live === undefined && f.startsWith('indexdb/')) continue;
      expect({ f, ino: snap.ino, links: snap.nlink >= 2 }).toEqual({ f, ino: live?.ino, links: true });
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(5);

    // A row only in the in-memory buffer: creating a snapshot flushes it first.
    await load(tsdb, `snap_c 1 ${T0}`);
    const second = await getJson<{ snapshot: string }>(`${tsdb.base}/snapshot/create`);
    const before = await exportSeries(tsdb.base, '{__name__=~"snap_.+|del_.+"}', { start: '0' });
    // Data written after the snapshot is not in it.
    await load(tsdb, `snap_after 1 ${T0}`);

    const copy = join(await makeTempDir('admin-snapcopy'), 'data');
    await cp(join(tsdb.dataDir, 'snapshots', second.snapshot), copy, { recursive: true });
    const restored = await startTsdb(copy);
    expect(await exportSeries(restored.base, '{__name__=~"snap_.+|del_.+"}', { start: '0' })).toEqual(before);
    expect(before.length).toBeGreaterThan(50);
    expect(before.map((s) => s.metric.__name__)).toContain('snap_c');
    await restored.stop();
  });
});

describe('auth keys of the admin routes', () => {
  let locked: Tsdb;
  beforeAll(async () => {
    locked = await startTsdb(await makeTempDir('admin-keys'), [
      '-deleteAuthKey=dk', '-snapshotAuthKey=sk', '-forceFlushAuthKey=ffk', '-forceMergeAuthKey=fmk', '-search.resetCacheAuthKey=rk',
      // Basic auth for everything else: a route with its own key set must not need it.
      '-httpAuth.username=u', '-httpAuth.password=p',
    ]);
  });

  it('answers 401 without the right authKey and serves with it', async () => {
    const f = async (method: string, path: string, key: string, okStatus: number) => {
      expect((await call(method, `${locked.base}${path}`)).status, `${path} without key`).toBe(401);
      expect((await call(method, `${locked.base}${path}${path.includes('?') ? '&' : '?'}authKey=wrong`)).status, `${path} wrong key`).toBe(401);
      const ok = await call(method, `${locked.base}${path}${path.includes('?') ? '&' : '?'}authKey=${key}`);
      expect(ok.status, `${path}: ${ok.text}`).toBe(okStatus);
    };
    await f('POST', '/api/v1/admin/tsdb/delete_series?match[]=nothing', 'dk', 204);
    await f('GET', '/snapshot/list', 'sk', 200);
    await f('POST', '/snapshot/create', 'sk', 200);
    await f('GET', '/snapshot/delete_all', 'sk', 200);
    await f('POST', '/internal/force_flush', 'ffk', 200);
    await f('POST', '/internal/force_merge', 'fmk', 200);
    await f('HEAD', '/internal/resetRollupResultCache', 'rk', 200);
    // Routes without a key of their own still need -httpAuth.*.
    expect((await get(`${locked.base}/api/v1/query?query=1`)).status).toBe(401);
    expect((await get(`${locked.base}/api/v1/query?query=1`, { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` })).status).toBe(200);
  });
});

describe('/internal/force_flush and /internal/force_merge', () => {
  it('flush buffered rows into parts and merge parts, answering 200 with an empty body', async () => {
    const parts = async () => metricValue((await get(`${tsdb.base}/metrics`)).text, 'tsdb_parts{tier="small"}') ?? 0;
    for (let k = 0; k < 3; k++) {
      await load(tsdb, `flush_a{k="${k}"} ${k} ${T0}`);
      const r = await post(`${tsdb.base}/internal/force_flush`);
      expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: '' });
      // /metrics reads engine stats at most every 100 ms.
      await expect.poll(async () => metricValue((await get(`${tsdb.base}/metrics`)).text, 'tsdb_pending_rows'), { timeout: 2_000 }).toBe(0);
    }
    expect(await parts()).toBeGreaterThanOrEqual(1);
    const m = await get(`${tsdb.base}/internal/force_merge?partition_prefix=${new Date(T0).toISOString().slice(0, 7).replace('-', '_')}`);
    expect({ status: m.status, body: m.text }).toEqual({ status: 200, body: '' });
    await expect.poll(parts, { timeout: 2_000 }).toBe(1);
    expect(await names(tsdb, 'flush_a')).toHaveLength(3);
    // What `curl -d ''` sends, and arguments in a form body.
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await post(`${tsdb.base}/internal/force_flush`, '', form)).status).toBe(200);
    expect((await post(`${tsdb.base}/internal/force_merge`, 'partition_prefix=2020_01', form)).status).toBe(200);
    const { snapshot } = JSON.parse((await post(`${tsdb.base}/snapshot/create`, '', form)).text) as { snapshot: string };
    expect(JSON.parse((await post(`${tsdb.base}/snapshot/delete`, `snapshot=${snapshot}`, form)).text)).toEqual({ status: 'ok' });
    const bad = await get(`${tsdb.base}/internal/force_merge?partition_prefix=../x`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('partition_prefix');
  });
});

describe('storage policies', () => {
  let policy: Tsdb;
  beforeAll(async () => {
    policy = await startTsdb(await makeTempDir('admin-policy'), ['-retentionPeriod=2d', '-dedup.minScrapeInterval=10s']);
  });

  it('-retentionPeriod: rows older than the retention (or over 2 days ahead) are skipped at write and counted', async () => {
    const now = Date.now();
    const rejected = async () => metricValue((await get(`${policy.base}/metrics`)).text, 'tsdb_rows_rejected_total{reason="outside_retention"}') ?? 0;
    const before = await rejected();
    // What storage does (src/lib/storage write path): the request succeeds, the old row is dropped.
    await load(policy, [`ret_a{age="3d"} 1 ${now - 3 * 86_400_000}`, `ret_a{age="1d"} 2 ${now - 86_400_000}`, `ret_a{age="future"} 3 ${now + 3 * 86_400_000}`].join('\n'));
    expect((await exportSeries(policy.base, 'ret_a', { start: '0', end: String(now + 4 * 86_400_000) })).map((s) => s.metric.age)).toEqual(['1d']);
    // /metrics reads engine stats at most every 100 ms.
    await expect.poll(rejected, { timeout: 2_000 }).toBe(before + 2);
  });

  it('-dedup.minScrapeInterval: export keeps the last sample of each interval, before and after a flush', async () => {
    const base = Math.floor((Date.now() - 3_600_000) / 10_000) * 10_000;
    await load(policy, Array.from({ length: 31 }, (_, i) => `dedup_a ${i} ${base + i * 1000}`).join('\n'));
    const want = { timestamps: [0, 10, 20, 30].map((s) => base + s * 1000), values: [0, 10, 20, 30] };
    const f = async () => {
      const [s] = await exportSeries(policy.base, 'dedup_a', { start: '0' });
      expect({ timestamps: s!.timestamps, values: s!.values }).toEqual(want);
    };
    await f();
    expect((await post(`${policy.base}/internal/force_flush`)).status).toBe(200);
    await f();
    expect((await post(`${policy.base}/internal/force_merge`)).status).toBe(200);
    await f();
  });
});
