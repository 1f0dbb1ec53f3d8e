import { describe, it, expect } from 'vitest';
import { streamCsv } from './stream.ts';
import { parseFormat } from './format.ts';
import { showRows } from '../common/testing.ts';
import type { Row } from '../common/row.ts';

describe('streamCsv', () => {
  it('keeps quoted newlines inside records across chunks and numbers lines', async () => {
    const body = Buffer.from('"multi\nline",1\nbad,x\n"a,b",2\n');
    for (const size of [1, 3, 5, 100]) {
      const rows: Row[] = [];
      const chunks = [];
      for (let i = 0; i < body.length; i += size) chunks.push(body.subarray(i, i + size));
      const sum = await streamCsv(chunks, { format: parseFormat('1:label:l,2:metric:v'), now: () => 9, onBatch: (r) => void rows.push(...r) });
      expect(showRows(rows)).toEqual(['v{l="multi\\nline"} 1 @9', 'v{l="a,b"} 2 @9']);
      expect(sum.errors.describe()).toBe('1 line could not be parsed; first: line 3: cannot parse value of metric "v" in column 2: "x"');
      expect(sum.lines).toBe(4);
    }
  });
});
