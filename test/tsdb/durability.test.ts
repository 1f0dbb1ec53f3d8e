// Durability of the tsdb process (issue 3 "Done means"): nothing acknowledged is lost when the
// process is SIGKILLed mid-stream or mid-merge, a graceful restart keeps everything, crash
// leftovers are cleaned at startup, and a restore in progress keeps tsdb from starting.

import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { remotewrite } from '../../src/lib/protoparser/index.ts';
import { exportSeries, get, labelsKey, metricValue, post, samplesOf } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, runTsdb, sleep, startTsdb, type Tsdb } from './harness.ts';

afterEach(killAll);
afterAll(removeTempDirs);

// Twelve hours ago, whole seconds: every timestamp of these tests is inside the default
// retention. A writer sends 10 s of points per batch, so it would take 4,320 batches to reach
// the present; a fast machine makes several hundred in the 2.6 s of a test (at one hour back,
// samples in the future once made the export, which ends at now, look like lost data).
const T0 = Math.floor((Date.now() - 12 * 3_600_000) / 1000) * 1000;
const SERIES_PER_BATCH = 50;
const POINTS_PER_BATCH = 10;

/** valueOf is the value writer w sends for series s at ts: exact in text, JSON and protobuf. */
const valueOf = (w: number, s: number, ts: number): number => ((w * 1000 + s) * 1e6 + (ts - T0) / 1000) / 7;

interface Writer {
  readonly name: string;
  /** body encodes batch b of writer w; tsOf gives the timestamps of the batch. */
  send(base: string, w: number, b: number): Promise<Response>;
}

const tsOf = (b: number): number[] => Array.from({ length: POINTS_PER_BATCH }, (_, j) => T0 + (b * POINTS_PER_BATCH + j) * 1000);

const WRITERS: readonly Writer[] = [
  {
    name: 'dur_text',
    send: (base, w, b) => {
      const lines: string[] = [];
      for (const ts of tsOf(b)) for (let s = 0; s < SERIES_PER_BATCH; s++) lines.push(`dur_text{w="${w}",s="${s}"} ${valueOf(w, s, ts)} ${ts}`);
      return fetch(`${base}/api/v1/import/prometheus`, { method: 'POST', body: lines.join('\n') });
    },
  },
  {
    name: 'dur_rw',
    send: (base, w, b) => {
      const ts = tsOf(b);
      const series = Array.from({ length: SERIES_PER_BATCH }, (_, s) => ({
        labels: [{ name: '__name__', value: 'dur_rw' }, { name: 's', value: String(s) }, { name: 'w', value: String(w) }],
        timestamps: ts,
        values: ts.map((t) => valueOf(w, s, t)),
      }));
      return fetch(`${base}/api/v1/write`, { method: 'POST', body: remotewrite.encodeWriteRequestSnappy(series), headers: { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' } });
    },
  },
  {
    name: 'dur_json',
    send: (base, w, b) => {
      const ts = tsOf(b);
      const lines = Array.from({ length: SERIES_PER_BATCH }, (_, s) => JSON.stringify({ metric: { __name__: 'dur_json', w: String(w), s: String(s) }, values: ts.map((t) => valueOf(w, s, t)), timestamps: ts }));
      return fetch(`${base}/api/v1/import`, { method: 'POST', body: lines.join('\n') });
    },
  },
];

/** sampleKey is the key samplesOf uses for one sample of writer w. */
const sampleKey = (name: string, w: number, s: number, ts: number): string => `${labelsKey({ __name__: name, s: String(s), w: String(w) })}@${ts}`;

/**
 * runWriters posts batches from six writers (two per format) until stopped or cut off. It records
 * acknowledged (204) batches, requests the network cut (failures), and any other answer (rejected).
 */
function runWriters(base: string) {
  const acked: Array<{ w: number; b: number }> = [];
  const failures: string[] = [];
  const rejected: string[] = [];
  let stopped = false;
  const loops = [0, 1, 2, 3, 4, 5].map(async (w) => {
    const writer = WRITERS[w % WRITERS.length]!;
    for (let b = 0; !stopped; b++) {
      let res: Response;
      let text: string;
      try {
        res = await writer.send(base, w, b);
        text = await res.text();
      } catch (err) {
        failures.push(`${writer.name} w=${w} b=${b}: ${(err as Error).message}`);
        return;
      }
      if (res.status !== 204) {
        rejected.push(`${writer.name} w=${w} b=${b}: status ${res.status}: ${text}`);
        return;
      }
      acked.push({ w, b });
    }
  });
  const stop = async () => {
    stopped = true;
    await Promise.all(loops);
  };
  return { acked, failures, rejected, stop };
}

const ALL = '{__name__=~"dur_.+"}';

/** expectAcked checks that t holds every acknowledged batch exactly, and nothing any writer did not send. */
async function expectAcked(t: Tsdb, acked: ReadonlyArray<{ w: number; b: number }>): Promise<void> {
  const exported = await exportSeries(t.base, ALL, { start: '0', end: String(Math.ceil(Date.now() / 1000) + 86_400) });
  const stored = samplesOf(exported);
  let missing = 0;
  let wrong = 0;
  for (const { w, b } of acked) {
    const name = WRITERS[w % WRITERS.length]!.name;
    for (const ts of tsOf(b)) {
      for (let s = 0; s < SERIES_PER_BATCH; s++) {
        const v = stored.get(sampleKey(name, w, s, ts));
        if (v === undefined) missing++;
        else if (!Object.is(v, valueOf(w, s, ts))) wrong++;
      }
    }
  }
  expect({ missing, wrong }).toEqual({ missing: 0, wrong: 0 });
  // Whatever else came back is a sample some writer sent, with its exact value.
  for (const { metric, timestamps, values } of exported) {
    const bad = timestamps.filter((ts, i) => !Object.is(values[i], valueOf(Number(metric.w), Number(metric.s), ts)));
    expect(bad).toEqual([]);
  }
}

// Waits in these tests stretch on a loaded machine (streamFor, MERGE_START_LIMIT_MS), so they get more time.
describe('tsdb durability under a stream of writes', { timeout: 120_000 }, () => {
  it('keeps every acknowledged sample of concurrent writers when killed mid-stream', async () => {
    const dir = await makeTempDir('dur-kill');
    const t1 = await startTsdb(dir);
    const writers = runWriters(t1.base);
    // Past one time-based flush (2 s), so acknowledged data is partly in parts, partly only in the WAL.
    await streamFor(writers, 2_600, 21);
    await t1.kill();
    await writers.stop();
    expect(writers.rejected).toEqual([]);
    // The kill cut requests in flight: proof that it landed in the middle of the stream.
    expect(writers.failures.length).toBeGreaterThan(0);
    expect(writers.acked.length).toBeGreaterThan(20);

    const t2 = await startTsdb(dir);
    await expectAcked(t2, writers.acked);
  });

  it('keeps every acknowledged sample when stopped with SIGTERM mid-stream, and exits 0', async () => {
    const dir = await makeTempDir('dur-term');
    const t1 = await startTsdb(dir);
    const writers = runWriters(t1.base);
    await streamFor(writers, 1_500, 11);
    expect(await t1.stop()).toBe(0);
    await writers.stop();
    // Requests in flight at SIGTERM were answered; later ones found the server gone.
    expect(writers.rejected).toEqual([]);
    expect(writers.acked.length).toBeGreaterThan(10);
    const t2 = await startTsdb(dir);
    await expectAcked(t2, writers.acked);
  });

  it('keeps the data intact when killed during a merge', async () => {
    const dir = await makeTempDir('dur-merge');
    const t1 = await startTsdb(dir);
    const sent = await loadParts(t1, 8, 200, 100);
    const mergeStarted = performance.now();
    const merge = post(`${t1.base}/internal/force_merge`).catch(() => undefined);
    await waitForMergeWriting(t1, dir);
    await t1.kill();
    await merge;
    // The merge output was being written when the process died.
    const halfWritten = await tmpPartDirs(dir);
    expect(halfWritten).not.toEqual([]);
    expect(performance.now() - mergeStarted).toBeLessThan(MERGE_START_LIMIT_MS);

    const t2 = await startTsdb(dir);
    // Gone at startup (a new merge may be writing parts of its own by now; names are never reused).
    const now = await tmpPartDirs(dir);
    expect(halfWritten.filter((d) => now.includes(d))).toEqual([]);
    expect(samplesOf(await exportSeries(t2.base, '{__name__="merge_m"}', { start: '0' }))).toEqual(sent);
    // The interrupted merge can be redone, and changes nothing visible.
    expect((await post(`${t2.base}/internal/force_merge`)).status).toBe(200);
    expect(samplesOf(await exportSeries(t2.base, '{__name__="merge_m"}', { start: '0' }))).toEqual(sent);
  });

  it('keeps a deletion acknowledged just before the kill', async () => {
    const dir = await makeTempDir('dur-delete');
    const t1 = await startTsdb(dir);
    const sent = await loadParts(t1, 1, 20, 10);
    // Some of the deleted series only in parts, the rest only in the buffer and WAL.
    expect((await post(`${t1.base}/api/v1/import/prometheus`, `merge_m{s="buffered"} 1 ${T0}\nmerge_m{s="kept"} 2 ${T0}`)).status).toBe(204);
    const del = await post(`${t1.base}/api/v1/admin/tsdb/delete_series?match[]=merge_m{s=~"1.*|buffered"}`);
    expect(del.status).toBe(204);
    await t1.kill();

    const t2 = await startTsdb(dir);
    const want = new Map([...sent].filter(([k]) => !/"s","1/.test(k)));
    want.set(`${labelsKey({ __name__: 'merge_m', s: 'kept' })}@${T0}`, 2);
    expect(samplesOf(await exportSeries(t2.base, '{__name__="merge_m"}', { start: '0' }))).toEqual(want);
    expect(want.size).toBe(10 * 9 + 1);
  });
});

/** loadParts imports `parts` batches of series×points random values, flushing after each one so each becomes a part. */
async function loadParts(t: Tsdb, parts: number, series: number, points: number): Promise<Map<string, number>> {
  const sent = new Map<string, number>();
  for (let k = 0; k < parts; k++) {
    const lines: string[] = [];
    for (let s = 0; s < series; s++) {
      const timestamps = Array.from({ length: points }, (_, i) => T0 + (k * points + i) * 1000);
      const values = timestamps.map(() => Math.random() * 1e6);
      const metric = { __name__: 'merge_m', s: String(s) };
      timestamps.forEach((ts, i) => sent.set(`${labelsKey(metric)}@${ts}`, values[i]!));
      lines.push(JSON.stringify({ metric, values, timestamps }));
    }
    expect((await post(`${t.base}/api/v1/import`, lines.join('\n'))).status).toBe(204);
    expect((await post(`${t.base}/internal/force_flush`)).status).toBe(200);
  }
  return sent;
}

/**
 * streamFor lets the writers run for at least minMs and until at least minAcked batches are
 * acknowledged (a loaded machine acknowledges fewer per second), giving up after a minute.
 */
async function streamFor(writers: { acked: readonly unknown[]; failures: readonly string[]; rejected: readonly string[] }, minMs: number, minAcked: number): Promise<void> {
  const started = Date.now();
  await sleep(minMs);
  while (writers.acked.length < minAcked && writers.failures.length === 0 && writers.rejected.length === 0 && Date.now() - started < 60_000) await sleep(50);
}

/** tmpPartDirs lists parts being written (data/<partition>/tmp/*) in dir. */
async function tmpPartDirs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const partition of await readdir(join(dir, 'data')).catch(() => [])) {
    for (const p of await readdir(join(dir, 'data', partition, 'tmp')).catch(() => [])) out.push(`${partition}/tmp/${p}`);
  }
  return out;
}

/** MERGE_START_LIMIT_MS bounds how long a forced merge may take to begin writing; generous for loaded CI machines. */
const MERGE_START_LIMIT_MS = 30_000;

/** waitForMergeWriting polls until a merge runs and has begun writing its output part. */
async function waitForMergeWriting(t: Tsdb, dir: string): Promise<void> {
  const deadline = Date.now() + MERGE_START_LIMIT_MS;
  while (Date.now() < deadline) {
    const running = metricValue((await get(`${t.base}/metrics`)).text, 'tsdb_merges_running');
    if (running !== undefined && running > 0 && (await tmpPartDirs(dir)).length > 0) return;
    await sleep(5);
  }
  throw new Error(`no merge started writing within ${MERGE_START_LIMIT_MS} ms of /internal/force_merge`);
}

describe('tsdb restarts', { timeout: 120_000 }, () => {
  it('keeps everything over a graceful restart, and removes crash leftovers at the next start', async () => {
    const dir = await makeTempDir('dur-restart');
    const t1 = await startTsdb(dir);
    const sent = await loadParts(t1, 2, 50, 20);
    // More rows that only the buffer and WAL hold at SIGTERM time.
    const extra = [`merge_m{s="late"} 1.5 ${T0}`, `merge_m{s="late"} -2.25 ${T0 + 1000}`].join('\n');
    expect((await post(`${t1.base}/api/v1/import/prometheus`, extra)).status).toBe(204);
    sent.set(`${labelsKey({ __name__: 'merge_m', s: 'late' })}@${T0}`, 1.5);
    sent.set(`${labelsKey({ __name__: 'merge_m', s: 'late' })}@${T0 + 1000}`, -2.25);
    expect(await t1.stop()).toBe(0);

    const t2 = await startTsdb(dir);
    expect(samplesOf(await exportSeries(t2.base, '{__name__="merge_m"}', { start: '0' }))).toEqual(sent);
    expect(await t2.stop()).toBe(0);

    // What a crash leaves behind, in the layout of src/lib/storage/FORMAT.md.
    const partition = (await readdir(join(dir, 'data'))).find((p) => /^\d{4}_\d{2}$/.test(p))!;
    const leftovers = [
      join(dir, 'data', partition, 'tmp', '0190a1b2c3d40001deadbeef'),
      join(dir, 'data', partition, '0190a1b2c3d40002deadbeef'),
      join(dir, 'indexdb', 'tmp', '0190a1b2c3d40003deadbeef'),
      join(dir, 'snapshots', '20240101000000-0123456789ABCDEF.tmp'),
    ];
    for (const d of leftovers) {
      await mkdir(d, { recursive: true });
      await writeFile(join(d, 'values.bin'), Buffer.alloc(1000, 7));
      await writeFile(join(d, 'metadata.json'), '{"formatVersion":1,"rowsCount":12');
    }
    const t3 = await startTsdb(dir);
    expect(leftovers.filter((d) => existsSync(d))).toEqual([]);
    expect(samplesOf(await exportSeries(t3.base, '{__name__="merge_m"}', { start: '0' }))).toEqual(sent);
  });

  it('refuses to start while a restore is in progress, and while another process holds the directory', async () => {
    const dir = await makeTempDir('dur-restore');
    const t1 = await startTsdb(dir);
    const second = await runTsdb(['-httpListenAddr=127.0.0.1:0', `-storageDataPath=${dir}`]);
    expect(second.code).not.toBe(0);
    expect(second.output).toContain(`process ${t1.pid} holds it`);
    expect(await t1.stop()).toBe(0);

    await writeFile(join(dir, 'restore-in-progress'), '');
    const r = await runTsdb(['-httpListenAddr=127.0.0.1:0', `-storageDataPath=${dir}`]);
    expect(r.code).toBe(1);
    expect(r.output).toContain('a restore is in progress (file "restore-in-progress" exists)');
    expect(r.output).not.toContain('listening on');
    expect(await readFile(join(dir, 'restore-in-progress'), 'utf8')).toBe('');
  });
});
