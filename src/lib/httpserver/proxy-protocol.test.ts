import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseProxyHeader } from './proxy-protocol.ts';

const SIG = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

function v2(verCmd: number, fam: number, body: Buffer): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(body.length);
  return Buffer.concat([SIG, Buffer.from([verCmd, fam]), len, body]);
}

describe('parseProxyHeader', () => {
  it('parses v1 headers', () => {
    const f = (text: string, want: unknown) => expect(parseProxyHeader(Buffer.from(text))).toEqual(want);
    f('PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\nGET', { kind: 'header', length: 45, source: { address: '192.0.2.1', port: 56324 } });
    f('PROXY TCP6 2001:db8::1 2001:db8::2 1 2\r\n', { kind: 'header', length: 40, source: { address: '2001:db8::1', port: 1 } });
    f('PROXY UNKNOWN\r\n', { kind: 'header', length: 15 });
    f('PROXY TCP4 1.2.3.4', { kind: 'incomplete' });
    f('PRO', { kind: 'incomplete' });
    f('PROXY TCP4 999.1.1.1 1.1.1.1 1 2\r\n', { kind: 'invalid', reason: expect.stringContaining('malformed PROXY v1 header') });
    f('PROXY TCP4 1.1.1.1 1.1.1.1 x 2\r\n', { kind: 'invalid', reason: expect.stringContaining('malformed') });
    f(`PROXY ${'x'.repeat(120)}`, { kind: 'invalid', reason: expect.stringContaining('longer than 107') });
    f('GET / HTTP/1.1\r\n', { kind: 'invalid', reason: expect.stringContaining('does not start with a PROXY') });
  });

  it('parses v2 headers', () => {
    const ipv4 = Buffer.from([10, 0, 0, 7, 10, 0, 0, 1, 0x1f, 0x90, 0x01, 0xbb]);
    expect(parseProxyHeader(Buffer.concat([v2(0x21, 0x11, ipv4), Buffer.from('GET')]))).toEqual({ kind: 'header', length: 28, source: { address: '10.0.0.7', port: 8080 } });
    const ipv6 = Buffer.alloc(36);
    ipv6[15] = 1;
    ipv6.writeUInt16BE(5000, 32);
    expect(parseProxyHeader(v2(0x21, 0x21, ipv6))).toEqual({ kind: 'header', length: 52, source: { address: '0:0:0:0:0:0:0:1', port: 5000 } });
    expect(parseProxyHeader(v2(0x20, 0x00, Buffer.alloc(0)))).toEqual({ kind: 'header', length: 16 });
    expect(parseProxyHeader(v2(0x21, 0x11, ipv4).subarray(0, 20))).toEqual({ kind: 'incomplete' });
    expect(parseProxyHeader(v2(0x31, 0x11, ipv4))).toMatchObject({ kind: 'invalid', reason: 'unsupported PROXY v2 version 3' });
    expect(parseProxyHeader(v2(0x21, 0x11, Buffer.alloc(4)))).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('too short') });
    expect(parseProxyHeader(Buffer.concat([SIG, Buffer.from([0x21, 0x11, 0xff, 0xff])]))).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('longer than') });
  });

  it('returns a result, never throws, on arbitrary bytes', () => {
    const header = fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.concat([SIG, Buffer.from(b)])),
      fc.string({ maxLength: 120 }).map((s) => Buffer.from(`PROXY ${s}`)));
    fc.assert(fc.property(header, (b) => {
      const r = parseProxyHeader(Buffer.from(b));
      expect(['incomplete', 'header', 'invalid']).toContain(r.kind);
      if (r.kind === 'header') expect(r.length).toBeLessThanOrEqual(b.length);
    }));
  });
});
