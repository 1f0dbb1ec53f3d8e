import { describe, it, expect } from 'vitest';
import zlib from 'node:zlib';
import { streamInflux } from './stream.ts';
import { showRows } from '../common/testing.ts';
import type { Row } from '../common/row.ts';

describe('streamInflux', () => {
  it('applies parse options to every block of a compressed body', async () => {
    const body = zlib.gzipSync(Buffer.from('cpu,host=a usage=1 1700000000\nmem free=2i 1700000001\n'));
    const rows: Row[] = [];
    const sum = await streamInflux([body.subarray(0, 10), body.subarray(10)], {
      contentEncoding: 'gzip', precision: 's', db: 'telegraf', now: () => 0, onBatch: (r) => void rows.push(...r),
    });
    expect(showRows(rows)).toEqual(['cpu_usage{db="telegraf",host="a"} 1 @1700000000000', 'mem_free{db="telegraf"} 2 @1700000001000']);
    expect(sum.rows).toBe(2);
  });
});
