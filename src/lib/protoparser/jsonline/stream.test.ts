import { describe, it, expect } from 'vitest';
import { streamJsonLines } from './stream.ts';
import { writeSeries } from './write.ts';

describe('streamJsonLines', () => {
  it('accepts lines far longer than text formats allow', async () => {
    const n = 50_000;
    const line = writeSeries([{ name: '__name__', value: 'm' }], Array.from({ length: n }, (_, i) => i), Array.from({ length: n }, (_, i) => i * 1.5));
    expect(line.length).toBeGreaterThan(256 * 1024);
    let rows = 0;
    const sum = await streamJsonLines([Buffer.from(line.slice(0, 1000)), Buffer.from(line.slice(1000))], { batchSize: 7000, onBatch: (r) => void (rows += r.length) });
    expect(sum.errors.count).toBe(0);
    expect(rows).toBe(n);
  });
});
