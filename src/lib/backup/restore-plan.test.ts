import { describe, expect, it } from 'vitest';
import { CorruptBackupError } from './errors.ts';
import { partKey, splitFile } from './part.ts';
import type { RemoteFile } from './remote-fs.ts';
import { planRestore } from './restore-plan.ts';

const filesOf = (...files: [string, number, number][]): RemoteFile[] =>
  files.flatMap(([p, size, partSize]) => splitFile(p, size, partSize).map((part) => ({ path: partKey(part), size: part.size })));

describe('planRestore', () => {
  it('groups parts into files in offset order', () => {
    const listing = [...filesOf(['d/a', 25, 10], ['b', 0, 10]), { path: 'backup_complete.ignore', size: 0 }, { path: 'backup_metadata.ignore', size: 40 }];
    const plan = planRestore(listing.reverse());
    expect(plan.map((f) => [f.path, f.size, f.parts.map((p) => [p.offset, p.size])])).toEqual([
      ['b', 0, [[0, 0]]],
      ['d/a', 25, [[0, 10], [10, 10], [20, 5]]],
    ]);
    expect(plan[1]?.parts[0]?.remotePath).toBe('d/a/0000000000000019_0000000000000000_000000000000000A');
  });

  it('refuses listings whose parts do not cover the files exactly', () => {
    const f = (listing: RemoteFile[], want: RegExp) => {
      expect(() => planRestore(listing)).toThrow(CorruptBackupError);
      expect(() => planRestore(listing)).toThrow(want);
    };
    const a = filesOf(['a', 25, 10]);
    f([a[0] as RemoteFile, a[2] as RemoteFile], /file "a" misses bytes 10\.\.19/); // a hole
    f([a[0] as RemoteFile, a[1] as RemoteFile], /file "a" misses bytes 20\.\.24/); // the tail
    f([a[1] as RemoteFile, a[2] as RemoteFile], /file "a" misses bytes 0\.\.9/); // the head
    f([...a, { path: 'a/0000000000000019_0000000000000005_000000000000000A', size: 10 }], /overlapping parts/);
    f([...a, { path: 'a/000000000000001A_0000000000000000_000000000000001A', size: 26 }], /disagree on its size/);
    f([{ ...(a[0] as RemoteFile), size: 9 }, a[1] as RemoteFile, a[2] as RemoteFile], /has 9 bytes, its name says 10/);
    f([...a, { path: 'stray.txt', size: 1 }], /unexpected object "stray.txt"/);
    f(filesOf(['x', 3, 10], ['x/y', 3, 10]), /"x" is both a file and a directory/);
    f(filesOf(['restore-in-progress', 3, 10]), /reserved name/);
  });

  it('accepts an empty backup', () => {
    expect(planRestore([{ path: 'backup_complete.ignore', size: 0 }])).toEqual([]);
  });
});
