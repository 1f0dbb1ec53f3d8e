import { describe, it, expect } from 'vitest';
import zlib from 'node:zlib';
import { streamPrometheus } from './stream.ts';
import { showRows } from '../common/testing.ts';
import type { Row } from '../common/row.ts';

describe('streamPrometheus', () => {
  it('parses a zstd body in chunks, stamping lines without timestamps', async () => {
    const body = zlib.zstdCompressSync(Buffer.from('# TYPE up gauge\nup{job="a"} 1\nup{job="b"} 0 5\nbroken\n'));
    const rows: Row[] = [];
    const chunks = [];
    for (let i = 0; i < body.length; i += 4) chunks.push(body.subarray(i, i + 4));
    const sum = await streamPrometheus(chunks, { contentEncoding: 'zstd', now: () => 77, onBatch: (r) => void rows.push(...r) });
    expect(showRows(rows)).toEqual(['up{job="a"} 1 @77', 'up{job="b"} 0 @5']);
    expect(sum.errors.first?.message).toBe('line 4: missing value after "broken"');
  });
});
