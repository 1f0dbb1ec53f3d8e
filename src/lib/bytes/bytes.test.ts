import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, CorruptDataError, int64Len, unzigzag, uvarintLen, varintLen, zigzag } from './index.ts';

const safeInt = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const hex = (s: string): Uint8Array => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('ByteWriter / ByteReader', () => {
  it('round-trips every safe integer as uvarint, varint and int64, with the lengths the helpers predict', () => {
    fc.assert(
      fc.property(fc.array(safeInt, { maxLength: 50 }), (vs) => {
        const w = new ByteWriter(16);
        for (const v of vs) {
          const at = w.pos;
          w.writeUvarint(Math.abs(v));
          expect(w.pos - at).toBe(uvarintLen(Math.abs(v)));
          const at2 = w.pos;
          w.writeVarint(v);
          expect(w.pos - at2).toBe(varintLen(v));
          const at3 = w.pos;
          w.writeInt64(v);
          expect(w.pos - at3).toBe(int64Len(v));
        }
        const r = new ByteReader(w.bytes(), 'test');
        for (const v of vs) expect([r.readUvarint(), r.readVarint(), r.readInt64()]).toEqual([Math.abs(v), v, v]);
        r.done();
      }),
    );
  });

  it('round-trips fixed widths and bytes, keeping NaN payloads', () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.double(), fc.uint8Array({ maxLength: 40 }), (u, f, b) => {
        const w = new ByteWriter();
        w.writeU8(u & 0xff);
        w.writeU32(u);
        w.writeF64(f);
        w.writeBytes(b);
        w.writeLatin1('ab\xff');
        const r = new ByteReader(w.copy(), 'test');
        expect(r.readU8()).toBe(u & 0xff);
        expect(r.readU32()).toBe(u);
        expect(Object.is(r.readF64(), f)).toBe(true);
        expect([...r.readBytes(b.length)]).toEqual([...b]);
        expect([...r.readBytes(3)]).toEqual([0x61, 0x62, 0xff]);
        expect(r.remaining()).toBe(0);
      }),
    );
    const nanBits = new Uint8Array(new Float64Array([NaN]).buffer);
    nanBits[0] = 2; // a payload, as Prometheus' staleness marker has
    const w = new ByteWriter();
    w.writeF64(new Float64Array(nanBits.buffer)[0]!);
    expect([...w.bytes()]).toEqual([...nanBits]);
  });

  it('reads varints backwards from their end', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), { minLength: 1, maxLength: 20 }), (vs) => {
        const w = new ByteWriter();
        w.writeU8(0x80); // a byte below the limit that looks like a continuation
        for (const v of vs) w.writeVarint(v);
        const r = new ByteReader(w.bytes(), 'test');
        r.pos = r.end;
        for (let i = vs.length - 1; i >= 0; i--) expect(r.readVarintBefore(1)).toBe(vs[i]);
        expect(r.pos).toBe(1);
        expect(() => r.readVarintBefore(1)).toThrow('no varint ends here');
      }),
    );
  });

  it('zigzag and unzigzag are inverse up to 2^52', () => {
    fc.assert(fc.property(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), (v) => {
      expect(unzigzag(zigzag(v))).toBe(v);
    }));
  });

  it('names the object and offset of bad input in a CorruptDataError', () => {
    const f = (bytes: string, read: (r: ByteReader) => unknown, msg: string) => {
      const r = new ByteReader(hex(bytes), 'index block "x"');
      expect(() => read(r)).toThrow(new CorruptDataError(`cannot decode index block "x" at byte ${msg}`));
    };
    f('80', (r) => r.readUvarint(), '1: truncated varint');
    f('ff ff ff ff ff ff ff ff ff ff 01', (r) => r.readUvarint(), '0: varint longer than 10 bytes');
    f('80 80 80 80 80 80 80 80 01', (r) => r.readUvarint(), '0: varint above 2^53');
    f('fe ff ff ff ff ff ff ff 7f', (r) => r.readVarint(), '0: integer out of range');
    f('80 80 80 80 80 80 80 80 80 01', (r) => r.readInt64(), '0: int64 -9223372036854775808 is out of the supported range');
    expect(new ByteReader(hex('ff ff ff ff ff ff ff ff ff 01'), 'x').readInt64()).toBe(-1);
    f('80 80 80 80 80 01', (r) => r.readUvarint32(), '5: varint does not fit 32 bits');
    f('01 02 03', (r) => r.readU32(), '0: needs 4 more bytes, 3 left');
    f('01 02', (r) => r.readBytes(3, 'label'), '0: label of 3 bytes runs past the end of the index block "x"');
    f('01 02', (r) => (r.readU8(), r.done()), '1: 1 trailing bytes');
  });

  it('fails only with the factory error on arbitrary input', () => {
    const mine = (reason: string, offset: number) => new RangeError(`${offset}: ${reason}`);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.array(fc.nat({ max: 7 }), { maxLength: 30 }), (bytes, ops) => {
        const r = new ByteReader(bytes, 'fuzz', 0, bytes.length, mine);
        try {
          for (const op of ops) {
            const v = [() => r.readUvarint(), () => r.readVarint(), () => r.readInt64(), () => r.readUvarint32(), () => r.readU8(), () => r.readU32(), () => r.readF64(), () => r.readBytes(3)][op]!();
            if (typeof v === 'number') expect(Number.isNaN(v) || Number.isSafeInteger(v) || op === 6).toBe(true);
            expect(r.pos).toBeLessThanOrEqual(r.end);
          }
        } catch (e) {
          expect(e).toBeInstanceOf(RangeError);
        }
      }),
    );
  });
});
