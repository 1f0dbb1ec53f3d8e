import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { formatPartName, parsePartKey, partKey, splitFile, type Part } from './part.ts';

describe('part names', () => {
  it('formats 16-digit upper-case hex fields', () => {
    const f = (p: Part, want: string) => {
      expect(partKey(p)).toBe(want);
      expect(parsePartKey(want)).toEqual(p);
    };
    f({ filePath: 'a', fileSize: 0, offset: 0, size: 0 }, 'a/0000000000000000_0000000000000000_0000000000000000');
    f({ filePath: 'data/small/p1/values.bin', fileSize: 3000, offset: 1024, size: 1024 }, 'data/small/p1/values.bin/0000000000000BB8_0000000000000400_0000000000000400');
    f({ filePath: 'x', fileSize: 2 ** 53 - 1, offset: 0, size: 2 ** 30 }, 'x/001FFFFFFFFFFFFF_0000000000000000_0000000040000000');
  });

  it('accepts lower-case hex when parsing', () => {
    expect(parsePartKey('a/000000000000000a_0000000000000000_000000000000000a')).toEqual({ filePath: 'a', fileSize: 10, offset: 0, size: 10 });
    expect(formatPartName({ fileSize: 10, offset: 0, size: 10 })).toBe('000000000000000A_0000000000000000_000000000000000A');
  });

  it('rejects keys that are not parts', () => {
    const f = (key: string, want: RegExp) => {
      expect(() => parsePartKey(key)).toThrow(ParseError);
      expect(() => parsePartKey(key)).toThrow(want);
    };
    f('0000000000000000_0000000000000000_0000000000000000', /expected <file path>/);
    f('/0000000000000000_0000000000000000_0000000000000000', /expected <file path>/);
    f('a/backup_complete.ignore', /not <size>_<offset>_<partsize>/);
    f('a/000000000000000_0000000000000000_0000000000000000', /not <size>/);
    f('a/000000000000000G_0000000000000000_0000000000000000', /not <size>/);
    f('a/FFFFFFFFFFFFFFFF_0000000000000000_0000000000000000', /too large/);
    f('a/000000000000000A_0000000000000008_0000000000000004', /exceeds the file size/);
    f('a/000000000000000A_0000000000000000_0000000000000000', /empty part/);
  });
});

describe('splitFile', () => {
  it('splits into parts of at most partSize', () => {
    const f = (size: number, partSize: number, want: [number, number][]) =>
      expect(splitFile('f', size, partSize).map((p) => [p.offset, p.size])).toEqual(want);
    f(0, 10, [[0, 0]]);
    f(1, 10, [[0, 1]]);
    f(10, 10, [[0, 10]]);
    f(11, 10, [[0, 10], [10, 1]]);
    f(25, 10, [[0, 10], [10, 10], [20, 5]]);
  });

  it('refuses a non-positive part size', () => {
    expect(() => splitFile('f', 1, 0)).toThrow(RangeError);
  });
});
