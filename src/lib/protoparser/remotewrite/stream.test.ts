import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { setImmediate as tick } from 'node:timers/promises';
import { compressSync } from 'snappy';
import { importRemoteWrite, importRemoteWriteKeyed } from './stream.ts';
import { encodeWriteRequest } from './encode.ts';
import type { Label, Row } from '../common/row.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';

const L = (name: string): Label[] => [{ name: '__name__', value: name }];
const limits = { maxBodyBytes: 1 << 20, maxDecodedBytes: 1 << 20 };

describe('importRemoteWrite', () => {
  it('delivers rows in batches with stats', async () => {
    const proto = encodeWriteRequest([1, 2, 3].map((i) => ({ labels: L(`m${i}`), timestamps: [i, i + 1], values: [i, i] })));
    const batches: number[] = [];
    const sum = await importRemoteWrite([compressSync(proto)], { ...limits, batchSize: 4, onBatch: (rows) => void batches.push(rows.length) });
    expect(batches).toEqual([4, 2]);
    expect(sum.rows).toBe(6);
    expect(sum.stats.timeseries).toBe(3);
    expect(sum.error).toBeUndefined();
  });

  it('returns a protobuf break after delivering the series before it', async () => {
    const proto = encodeWriteRequest([{ labels: L('a'), timestamps: [1], values: [1] }, { labels: L('b'), timestamps: [2], values: [2] }]);
    let rows = 0;
    const sum = await importRemoteWrite([compressSync(proto.subarray(0, proto.length - 3))], { ...limits, onBatch: (r) => void (rows += r.length) });
    expect(rows).toBe(1);
    expect(sum.error?.message).toMatch(/^at byte \d+: field length \d+ exceeds the \d+ bytes left$/);
  });
});

describe('importRemoteWriteKeyed', () => {
  // Snappy bodies are decoded into one shared buffer that a request reads only until it first
  // waits: concurrent requests whose batches wait on a slow consumer must each still deliver
  // exactly their own rows, as importRemoteWrite does.
  const show = (r: Row) => `${JSON.stringify(r.labels)} ${r.timestamp} ${r.value}`;
  const bodyArb = fc.array(fc.record({
    name: fc.constantFrom('a', 'b', 'c_total', 'd_with_a_longer_name'),
    inst: fc.string({ maxLength: 30 }),
    samples: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: -1000, max: 1000 })), { minLength: 1, maxLength: 6 }),
  }), { minLength: 1, maxLength: 40 }).map((series) => compressSync(encodeWriteRequest(series.map((x) => ({
    labels: [{ name: '__name__', value: x.name }, ...(x.inst === '' ? [] : [{ name: 'instance', value: x.inst }])],
    timestamps: x.samples.map((t) => t[0]), values: x.samples.map((t) => t[1]),
  })))));

  it('delivers each concurrent request its own rows, in order, however small the batches (property)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(bodyArb, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 20 }), fc.nat(), async (bodies, batchSize, cut) => {
      const want = await Promise.all(bodies.map(async (b) => {
        const rows: string[] = [];
        await importRemoteWrite([b], { ...limits, onBatch: (rs) => void rows.push(...rs.map(show)) });
        return rows;
      }));
      const keys = new SeriesKeyDictionary(1 << 20);
      const got = await Promise.all(bodies.map(async (b, i) => {
        const rows: string[] = [];
        // Sent in one chunk or three (joined in the shared buffer), each in its own event-loop turn.
        const at = cut % (b.length + 1);
        const chunks = i % 2 === 0 ? [b] : [b.subarray(0, at >> 1), b.subarray(at >> 1, at), b.subarray(at)];
        const source = (async function* () {
          for (const c of chunks) {
            await tick();
            yield c;
          }
        })();
        const sum = await importRemoteWriteKeyed(source, {
          ...limits, keys, batchSize,
          onBatch: async (batch) => {
            const copy = batch.toRows().map(show);
            for (let w = 0; w <= i; w++) await tick(); // let other requests decode and parse meanwhile
            rows.push(...copy);
          },
        });
        expect(sum.error).toBeUndefined();
        expect(sum.rows).toBe(rows.length);
        return rows;
      }));
      expect(got).toEqual(want);
    }), { numRuns: 60 });
  });
});
