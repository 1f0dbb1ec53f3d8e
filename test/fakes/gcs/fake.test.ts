import { describe, expect, it } from 'vitest';
import { crc32c, crc32cBase64 } from './crc32c.ts';
import { boundaryOf, parseMultipart } from './multipart.ts';

describe('crc32c', () => {
  it('matches the Castagnoli check values', () => {
    const f = (input: string, want: number) => expect(crc32c(Buffer.from(input))).toBe(want);
    f('', 0);
    f('123456789', 0xe3069283);
    f('a', 0xc1d04330);
    expect(crc32cBase64(Buffer.from('123456789'))).toBe(Buffer.from([0xe3, 0x06, 0x92, 0x83]).toString('base64'));
  });
});

describe('parseMultipart', () => {
  it('splits a multipart/related body as the SDK sends it', () => {
    const body = Buffer.from('--B1\r\nContent-Type: application/json\r\n\r\n{"name":"x"}\r\n--B1\r\nContent-Type: application/octet-stream\r\n\r\nda\r\nta\r\n--B1--');
    const parts = parseMultipart(body, 'B1');
    expect(parts.map((p) => [p.headers['content-type'], p.body.toString()])).toEqual([
      ['application/json', '{"name":"x"}'],
      ['application/octet-stream', 'da\r\nta'],
    ]);
  });

  it('reads the boundary and rejects broken bodies', () => {
    expect(boundaryOf('multipart/related; boundary=abc-1')).toBe('abc-1');
    expect(boundaryOf('multipart/related; boundary="q q"')).toBe('q q');
    expect(boundaryOf('application/json')).toBeUndefined();
    expect(() => parseMultipart(Buffer.from('no boundary here'), 'B')).toThrow(/no boundary/);
    expect(() => parseMultipart(Buffer.from('--B\r\nX: y\r\n\r\ndata'), 'B')).toThrow(/not terminated/);
  });
});
