// Every float64 exported by Strata's JSON-lines writer and imported again (by both JSON-lines
// parsers) comes back bit for bit: -0, subnormals, the largest finite values, ±Inf and the
// staleness marker included. The one documented exception: a NaN other than the staleness marker
// is written "NaN" and read back as the default NaN (0x7ff8000000000000); its payload is not kept.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STALE_NAN } from '../../storageapi/index.ts';
import { KeyedColumns } from '../common/keyed-columns.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { parse } from './parse.ts';
import { parseJsonLinesKeyed } from './parse-keyed.ts';
import { writeSeries, writeSeriesView } from './write.ts';

const STALE_BITS = 0x7ff0000000000002n;
const DEFAULT_NAN_BITS = 0x7ff8000000000000n;
const view = new DataView(new ArrayBuffer(8));
const bitsOf = (v: number): bigint => {
  view.setFloat64(0, v);
  return view.getBigUint64(0);
};
const fromBits = (b: bigint): number => {
  view.setBigUint64(0, b);
  return view.getFloat64(0);
};

// expected: the bits an imported value must have (the rule above).
const expected = (b: bigint): bigint => {
  const isNaN = (b & 0x7ff0000000000000n) === 0x7ff0000000000000n && (b & 0xfffffffffffffn) !== 0n;
  return isNaN && b !== STALE_BITS ? DEFAULT_NAN_BITS : b;
};

// Any 64-bit pattern, and the values worth hitting on purpose.
const anyBits = fc.oneof(
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  fc.double().map(bitsOf),
  fc.constantFrom(0n, 1n << 63n, 1n, 0xfffffffffffffn, 0x7fefffffffffffffn, 0xffefffffffffffffn, 0x7ff0000000000000n, 0xfff0000000000000n, STALE_BITS, DEFAULT_NAN_BITS, 0xfff8000000000001n),
);
const labels = [{ name: '__name__', value: 'm' }];

describe('JSON-lines export → import', () => {
  it('returns every float64 bit for bit (NaN payloads other than the staleness marker excepted)', () => {
    fc.assert(fc.property(fc.array(anyBits, { minLength: 1, maxLength: 40 }), fc.nat({ max: 5 }), (bits, maxRows) => {
      const values = new Float64Array(bits.length);
      bits.forEach((b, i) => (values[i] = fromBits(b)));
      const ts = new Float64Array(bits.length).map((_, i) => 1_700_000_000_000 + i);
      const body = Buffer.from(writeSeriesView(labels, ts, values, maxRows));
      const want = bits.map(expected);
      // the row parser (bodies with extra_label)
      const rows = parse(body.toString('utf8'));
      expect(rows.errors.describe()).toBe('');
      expect(rows.rows.map((r) => bitsOf(r.value))).toEqual(want);
      expect(rows.rows.map((r) => r.timestamp)).toEqual([...ts]);
      // the keyed parser (the usual ingest path); its values stay in a Float64Array
      const keys = new SeriesKeyDictionary(1 << 20);
      const out = new KeyedColumns(4, keys.table);
      expect(parseJsonLinesKeyed(body, { keys, out }).errors.describe()).toBe('');
      expect([...out.values.subarray(0, out.length)].map(bitsOf)).toEqual(want);
      // the string writer spells the same text
      expect(writeSeries(labels, ts, values, maxRows)).toBe(body.toString('utf8'));
    }), { numRuns: 2000 });
  });

  it('writes the staleness marker as null and other non-finite values as strings', () => {
    // Filled one by one: a plain array literal of doubles would turn the marker into the default NaN.
    const values = new Float64Array(4);
    values[0] = STALE_NAN;
    values[1] = NaN;
    values[2] = Infinity;
    values[3] = -Infinity;
    expect(writeSeries(labels, [1, 2, 3, 4], values)).toBe('{"metric":{"__name__":"m"},"values":[null,"NaN","Inf","-Inf"],"timestamps":[1,2,3,4]}\n');
  });
});
