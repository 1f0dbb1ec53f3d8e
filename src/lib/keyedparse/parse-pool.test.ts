import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger/index.ts';
import { writeMetrics } from '../metrics/index.ts';
import { common, prometheus } from '../protoparser/index.ts';
import { ParsePool, type ParsePoolOptions } from './parse-pool.ts';

const { logger } = createLogger({ format: 'default', level: 'ERROR', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {} });
const pools: ParsePool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});
const pool = (o: Partial<ParsePoolOptions> = {}) => {
  const p = new ParsePool({ workers: 1, keyBytesPerWorker: 1 << 20, logger, ...o });
  pools.push(p);
  return p;
};
const crashing = new URL('./testdata/crashing-parse-worker.ts', import.meta.url);

// chunks cuts text into pieces of n bytes, as a network stream would deliver it.
function chunks(text: string | Buffer, n: number): Buffer[] {
  const buf = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += n) out.push(buf.subarray(i, i + n));
  return out;
}

const show = (b: common.KeyedColumns) => b.toRows().map((r) => `${JSON.stringify(r.labels)} ${r.value} @${r.timestamp} ${r.rawKey}`);

// viaPool parses with the pool; viaMain with the keyed parser on this thread: they must agree.
async function viaPool(p: ParsePool, body: Buffer[], contentEncoding?: string) {
  const rows: string[] = [];
  const sum = await p.parsePrometheus(body, { contentEncoding, maxDecodedBytes: 1 << 20, now: () => 7, onBatch: async (b) => void rows.push(...show(b)) });
  return { rows, lines: sum.lines, rowCount: sum.rows, errors: sum.errors.describe() };
}
async function viaMain(body: Buffer[], contentEncoding?: string) {
  const rows: string[] = [];
  const keys = new common.SeriesKeyDictionary(1 << 20);
  const sum = await prometheus.streamPrometheusKeyed(body, { contentEncoding, maxDecodedBytes: 1 << 20, keys, now: () => 7, onBatch: (b) => void rows.push(...show(b)) });
  return { rows, lines: sum.lines, rowCount: sum.rows, errors: sum.errors.describe() };
}

describe('ParsePool', () => {
  it('parses bodies on a worker exactly as on the event loop', async () => {
    const p = pool({ batchSize: 50 });
    const f = async (body: string, chunkBytes: number, encoding?: string) => {
      const raw = encoding === 'gzip' ? gzipSync(body) : Buffer.from(body);
      expect(await viaPool(p, chunks(raw, chunkBytes), encoding)).toEqual(await viaMain(chunks(raw, chunkBytes), encoding));
    };
    const many = Array.from({ length: 500 }, (_, i) => `m{i="${i % 40}"} ${i} ${1000 + i}`).join('\n');
    // many rows over many chunks and batches, then the same series again (known to the worker)
    await f(many, 100);
    await f(many, 7000);
    // bad lines, a line over the length limit, blanks and comments, a missing final newline
    await f(`# HELP m x\nm{i="1"} 1\nbad\n\n${'y'.repeat(300_000)} 1\nm{i="2"} 2`, 4096);
    // a compressed body, and an empty one
    await f(many, 333, 'gzip');
    await f('', 10);
  });

  it('spreads concurrent bodies over workers, each with its own key numbers', async () => {
    const p = pool({ workers: 2 });
    const body = (tag: string) => chunks(Array.from({ length: 300 }, (_, i) => `s_${tag}{i="${i}"} ${i}`).join('\n'), 512);
    const got = await Promise.all(['a', 'b', 'c', 'a'].map((t) => viaPool(p, body(t))));
    const want = await Promise.all(['a', 'b', 'c', 'a'].map((t) => viaMain(body(t))));
    expect(got).toEqual(want);
  });

  it('stops at the first storage error and stores nothing after it', async () => {
    const p = pool({ batchSize: 10 });
    let calls = 0;
    const body = chunks(Array.from({ length: 200 }, (_, i) => `m ${i}`).join('\n'), 64);
    const run = p.parsePrometheus(body, { now: () => 7, onBatch: async () => {
      if (++calls === 2) throw new Error('disk full');
    } });
    await expect(run).rejects.toThrow('disk full');
    expect(calls).toBe(2);
    // the pool keeps working
    expect((await viaPool(p, chunks('m 1', 10))).rowCount).toBe(1);
  });

  it('rejects with the error of the body itself', async () => {
    const p = pool();
    await expect(p.parsePrometheus(chunks('m 1\n'.repeat(100), 50), { maxDecodedBytes: 100, now: () => 7, onBatch: async () => {} })).rejects.toThrow(common.BodyTooLargeError);
    await expect(p.parsePrometheus(chunks('x', 1), { contentEncoding: 'gzip', now: () => 7, onBatch: async () => {} })).rejects.toThrow(common.ParseError);
  });

  it('fails only the bodies of a worker that dies, and starts another', async () => {
    const p = pool({ workerUrl: crashing });
    await expect(viaPool(p, chunks('m 1\nCRASH 2\n', 100))).rejects.toThrow(/parse worker exited with code 3/);
    expect(await viaPool(p, chunks('m 1\nm 2\n', 3))).toMatchObject({ rowCount: 2, lines: 2 });
    expect(p.available).toBe(true);
  });

  it('gives up on workers that cannot start', async () => {
    const p = pool({ workerUrl: new URL('./testdata/failing-parse-worker.ts', import.meta.url) });
    for (let i = 0; i < 3; i++) await expect(viaPool(p, chunks('m 1', 10))).rejects.toThrow(/parse worker exited/);
    expect(p.available).toBe(false);
  });

  it('replaces a worker whose dictionary outgrew its budget, keeping results right', async () => {
    const p = pool({ keyBytesPerWorker: 1000, batchSize: 20 });
    const body = () => chunks(Array.from({ length: 100 }, (_, i) => `k${i} ${i}`).join('\n'), 200);
    const replaced = async () => Number(/parse_workers_started_total\{reason="replaced"\} (\d+)/.exec(await writeMetrics())?.[1] ?? 0);
    const before = await replaced();
    for (let i = 0; i < 3; i++) expect(await viaPool(p, body())).toEqual(await viaMain(body()));
    expect(await replaced()).toBe(before + 2);
  });

  it('refuses a pool without workers', () => {
    expect(() => new ParsePool({ workers: 0, keyBytesPerWorker: 1, logger })).toThrow(/at least one worker/);
  });
});
