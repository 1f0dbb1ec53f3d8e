import { describe, it, expect } from 'vitest';
import { compressSync } from 'snappy';
import { importRemoteWrite } from './stream.ts';
import { encodeWriteRequest } from './encode.ts';
import type { Label } from '../common/row.ts';

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
