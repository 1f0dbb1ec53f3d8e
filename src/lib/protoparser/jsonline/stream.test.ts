import { describe, it, expect } from 'vitest';
import { gzipSync } from 'node:zlib';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { showRows } from '../common/testing.ts';
import type { Row } from '../common/row.ts';
import { streamJsonLines, streamJsonLinesKeyed } from './stream.ts';
import { writeSeries } from './write.ts';

const long = (n: number) => writeSeries([{ name: '__name__', value: 'm' }], Array.from({ length: n }, (_, i) => i), Array.from({ length: n }, (_, i) => i * 1.5));

describe('streamJsonLines', () => {
  it('accepts lines far longer than text formats allow', async () => {
    const n = 50_000;
    const line = long(n);
    expect(line.length).toBeGreaterThan(256 * 1024);
    let rows = 0;
    const sum = await streamJsonLines([Buffer.from(line.slice(0, 1000)), Buffer.from(line.slice(1000))], { batchSize: 7000, onBatch: (r) => void (rows += r.length) });
    expect(sum.errors.count).toBe(0);
    expect(rows).toBe(n);
  });
});

describe('streamJsonLinesKeyed', () => {
  it('delivers the rows and errors of streamJsonLines', async () => {
    const body = Buffer.from(`${long(20_000)}{"metric":{"__name__":"a","job":"x"},"values":[1,"NaN"],"timestamps":[5,6]}\nnot json\n${long(3)}`);
    const f = async (chunks: Buffer[], encoding?: string) => {
      const want: Row[] = [];
      const wantSum = await streamJsonLines(chunks, { contentEncoding: encoding, onBatch: (r) => void want.push(...r) });
      const got: Row[] = [];
      const sizes: number[] = [];
      const keys = new SeriesKeyDictionary(1 << 20);
      const sum = await streamJsonLinesKeyed(chunks, { contentEncoding: encoding, keys, batchSize: 5000, onBatch: (b) => void (sizes.push(b.length), got.push(...b.toRows())) });
      expect(showRows(got)).toEqual(showRows(want));
      expect([sum.rows, sum.lines, sum.errors.describe()]).toEqual([wantSum.rows, wantSum.lines, '1 line could not be parsed; first: line 3: cannot parse JSON: Unexpected token \'o\', "not json" is not valid JSON']);
      // batches end at block (chunk) boundaries once past batchSize
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(20_005);
      expect(keys.size).toBe(2);
    };
    await f([body]);
    await f([body.subarray(0, 1000), body.subarray(1000, 70_000), body.subarray(70_000)]);
    await f([gzipSync(body)], 'gzip');
  });

  it('counts a line over the length limit as bad and goes on', async () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    let rows = 0;
    const sum = await streamJsonLinesKeyed([Buffer.from(`${long(300)}${long(2)}`)], { keys, maxLineLength: 1000, onBatch: (b) => void (rows += b.length) });
    expect([rows, sum.errors.describe()]).toEqual([2, expect.stringMatching(/^1 line could not be parsed; first: line 1: line is longer than 1000 bytes/)]);
  });
});
