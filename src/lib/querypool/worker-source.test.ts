import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { WORKER_BOOT, workerSource } from './worker-source.ts';

describe('workerSource', () => {
  it('strips the worker and the project modules it imports, once', () => {
    const s = workerSource(new URL('./worker.ts', import.meta.url));
    const files = s.sources.map(([url]) => url.replace(/^.*\/src\/lib\//, ''));
    expect(files).toEqual(expect.arrayContaining(['querypool/worker.ts', 'querypool/batch.ts', 'querypool/errors.ts', 'query/rollup-run.ts', 'storage/series-blocks.ts', 'errors/coded.ts']));
    const batch = s.sources.find(([url]) => url.endsWith('/querypool/batch.ts'))![1];
    expect(batch).toMatch(/export function evalBatch\(spec\s*, b\s*, dec\s*, out\s*\)/);
    expect(batch).not.toMatch(/import type|: RollupSpec/);
    expect(workerSource(new URL('./worker.ts', import.meta.url))).toBe(s);
  });

  it('names the module it cannot read', () => {
    expect(() => workerSource(new URL('./no-such-worker.ts', import.meta.url))).toThrow(/cannot read query worker module ".*no-such-worker.ts"/);
  });
});

describe('WORKER_BOOT', () => {
  it('runs the entry from the sources given, not from disk', async () => {
    // On disk this worker exits with code 7 (pool.test.ts); served, it answers 42.
    const entry = new URL('./testdata/crashing-worker.ts', import.meta.url).href;
    const w = new Worker(WORKER_BOOT, { eval: true, workerData: { entry, sources: [[entry, "import { parentPort } from 'node:worker_threads'; parentPort.postMessage(42);"]] } });
    try {
      expect(await new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      })).toBe(42);
    } finally {
      await w.terminate();
    }
  });
});
