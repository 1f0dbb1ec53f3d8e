import { describe, expect, it } from 'vitest';
import { partKey, splitFile, type Part } from './part.ts';
import type { RemoteFile } from './remote-fs.ts';
import { partsOf, planSync } from './sync-plan.ts';

const parts = (...files: [string, number][]): Part[] => files.flatMap(([p, s]) => splitFile(p, s, 10));
const remote = (backup: string, ps: Part[]): RemoteFile[] => ps.map((p) => ({ path: `${backup}/${partKey(p)}`, size: p.size }));
const keys = (ps: readonly Part[]) => ps.map(partKey);

describe('planSync', () => {
  it('uploads everything into an empty folder', () => {
    const wanted = parts(['a', 15], ['b', 0]);
    const plan = planSync({ backup: 'latest', wanted, existing: [] });
    expect(keys(plan.upload)).toEqual(keys(wanted));
    expect(plan).toMatchObject({ copy: [], delete: [], keptParts: 0 });
  });

  it('uploads nothing when the folder already matches, and keeps markers', () => {
    const wanted = parts(['a', 15], ['d/b', 3]);
    const existing = [...remote('latest', wanted), { path: 'latest/backup_metadata.ignore', size: 10 }, { path: 'latest/backup_locked.ignore', size: 0 }];
    const plan = planSync({ backup: 'latest', wanted, existing });
    expect(plan).toEqual({ upload: [], copy: [], delete: [], keptParts: 3 });
  });

  it('uploads what is missing and deletes what the source lacks or what has the wrong size', () => {
    const wanted = parts(['a', 15], ['c', 5]);
    const existing: RemoteFile[] = [
      ...remote('latest', parts(['a', 15]).slice(0, 1)), // first part of a present
      { path: `latest/${partKey({ filePath: 'a', fileSize: 15, offset: 10, size: 5 })}`, size: 4 }, // truncated object
      ...remote('latest', parts(['old', 3])), // no longer in the source
      { path: 'latest/junk.txt', size: 1 }, // not a part
    ];
    const plan = planSync({ backup: 'latest', wanted, existing });
    expect(keys(plan.upload)).toEqual(['a/000000000000000F_000000000000000A_0000000000000005', 'c/0000000000000005_0000000000000000_0000000000000005']);
    expect(plan.delete.map((f) => f.path).sort()).toEqual([
      'latest/a/000000000000000F_000000000000000A_0000000000000005',
      'latest/junk.txt',
      'latest/old/0000000000000003_0000000000000000_0000000000000003',
    ]);
    expect(plan.keptParts).toBe(1);
  });

  it('copies server-side from an origin that has the part', () => {
    const wanted = parts(['a', 5], ['b', 5]);
    const origins = new Map([['latest', [...remote('latest', parts(['a', 5])), { path: 'latest/backup_complete.ignore', size: 0 }]]]);
    const plan = planSync({ backup: 'daily/2024-01-01', wanted, existing: [], origins });
    expect(plan.copy).toEqual([{ part: wanted[0], from: 'latest/a/0000000000000005_0000000000000000_0000000000000005' }]);
    expect(keys(plan.upload)).toEqual(['b/0000000000000005_0000000000000000_0000000000000005']);
  });

  it('does not copy an origin object of the wrong size', () => {
    const wanted = parts(['a', 5]);
    const origins = new Map([['latest', [{ path: `latest/${partKey(wanted[0] as Part)}`, size: 2 }]]]);
    const plan = planSync({ backup: 'x', wanted, existing: [], origins });
    expect(plan.copy).toEqual([]);
    expect(plan.upload).toHaveLength(1);
  });

  it('treats lower-case hex names as the same part', () => {
    const wanted = parts(['a', 10]);
    const existing = [{ path: 'latest/a/000000000000000a_0000000000000000_000000000000000a', size: 10 }];
    expect(planSync({ backup: 'latest', wanted, existing })).toMatchObject({ upload: [], delete: [], keptParts: 1 });
  });
});

describe('partsOf', () => {
  it('parses the parts of a folder and skips markers and foreign files', () => {
    const files: RemoteFile[] = [
      ...remote('latest', parts(['x/y', 12])),
      { path: 'latest/backup_complete.ignore', size: 0 },
      { path: 'latest/notes.txt', size: 3 },
      { path: 'latest2/z/0000000000000001_0000000000000000_0000000000000001', size: 1 },
    ];
    expect(keys(partsOf('latest', files))).toEqual(keys(parts(['x/y', 12])));
  });
});
