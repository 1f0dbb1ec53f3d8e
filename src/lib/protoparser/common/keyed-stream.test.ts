import { describe, it, expect } from 'vitest';
import { parseKeyedBytes } from '../prometheus/parse-keyed-bytes.ts';
import type { KeyedColumns } from './keyed-columns.ts';
import { streamKeyedLines } from './keyed-stream.ts';
import { SeriesKeyDictionary } from './series-keys.ts';
import { showRows } from './testing.ts';

// chunks cuts text into pieces of n bytes, as a network stream would deliver it.
function chunks(text: string, n: number): Buffer[] {
  const buf = Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += n) out.push(buf.subarray(i, i + n));
  return out;
}

const parseBlock = (keys: SeriesKeyDictionary) => (block: Buffer, firstLine: number, out: KeyedColumns) => parseKeyedBytes(block, { now: () => 5, firstLine, keys, out });

describe('streamKeyedLines', () => {
  it('delivers every row in order in batches of about batchSize, and counts lines and errors', async () => {
    const f = async (text: string, chunkBytes: number, batchSize: number, wantBatches: number[], wantErrors: string) => {
      const keys = new SeriesKeyDictionary(1 << 20);
      const sizes: number[] = [];
      const rows: string[] = [];
      const sum = await streamKeyedLines(chunks(text, chunkBytes), parseBlock(keys), {
        keys, batchSize, maxLineLength: 40,
        onBatch: (b) => {
          sizes.push(b.length);
          rows.push(...showRows(b.toRows()));
        },
      });
      expect(sizes).toEqual(wantBatches);
      expect(rows).toEqual(text.split('\n').filter((l) => /^m\d* \d+$/.test(l)).map((l) => `${l.split(' ')[0]}{} ${l.split(' ')[1]} @5`));
      expect([sum.rows, sum.lines, sum.errors.describe()]).toEqual([rows.length, text.split('\n').length - (text.endsWith('\n') ? 1 : 0), wantErrors]);
    };
    const ten = Array.from({ length: 10 }, (_, i) => `m${i % 3} ${i}`).join('\n') + '\n';
    // one chunk: one block, so one batch however small batchSize is
    await f(ten, 1000, 3, [10], '');
    // small chunks: a batch ends at the first block boundary past batchSize
    await f(ten, 10, 3, [4, 4, 2], '');
    // bad and over-long lines are counted with their line numbers
    await f(`m 1\nbad\n${'x'.repeat(50)} 1\nm 2\n`, 7, 100, [2], '2 lines could not be parsed; first: line 2: missing value after "bad"');
  });

  it('never mixes key tables in a batch when another stream trims the dictionary', async () => {
    const keys = new SeriesKeyDictionary(400);
    const seen: { table: unknown; rows: string[] }[] = [];
    const onBatch = (b: KeyedColumns) => {
      seen.push({ table: b.table, rows: showRows(b.toRows()) });
    };
    // a stream that trims between its batches, interleaved with one that holds a batch open
    const lines = (p: string) => Array.from({ length: 30 }, (_, i) => `${p}${i} ${i}`).join('\n') + '\n';
    const sums = await Promise.all([
      streamKeyedLines(chunks(lines('a'), 16), parseBlock(keys), { keys, batchSize: 2, onBatch }),
      streamKeyedLines(chunks(lines('b'), 16), parseBlock(keys), { keys, batchSize: 1000, onBatch }),
    ]);
    expect(sums.map((s) => s.rows)).toEqual([30, 30]);
    expect(keys.resets).toBeGreaterThan(0);
    const all = seen.flatMap((s) => s.rows).sort();
    expect(all).toHaveLength(60);
    expect(new Set(seen.map((s) => s.table)).size).toBeGreaterThan(1);
  });

  it('delivers per chunk when asked', async () => {
    const keys = new SeriesKeyDictionary(1 << 20);
    const sizes: number[] = [];
    await streamKeyedLines(chunks('m 1\nm 2\nm 3\n', 4), parseBlock(keys), { keys, flushPerChunk: true, onBatch: (b) => void sizes.push(b.length) });
    expect(sizes).toEqual([1, 1, 1]);
  });
});
