import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupNotFoundError, ParseError } from '../errors.ts';
import { FsRemote } from '../fs/fs-remote.ts';
import { RESTORE_IN_PROGRESS, RESTORE_MARK } from '../markers.ts';
import { createRemoteFs } from '../open-remote.ts';
import { makeTree, tempDir, type TempDir } from '../testing/tree.ts';
import { backup } from './backup.ts';
import { createRestoreMark, deleteRestoreMark, findPendingRestore, getRestoreMark } from './restore-mark.ts';

let tmp: TempDir;
let dst: FsRemote;
let data: string;
const opened: string[] = [];
const openRemote = async (url: string) => {
  opened.push(url);
  return createRemoteFs(url);
};

beforeEach(async () => {
  tmp = await tempDir('mark');
  dst = new FsRemote({ root: join(tmp.path, 'dst'), fsync: false });
  data = join(tmp.path, 'data');
  await makeTree(join(tmp.path, 'snap'), { f: 'x' });
  await backup(join(tmp.path, 'snap'), dst, 'daily/2024-01-01');
  opened.length = 0;
});
afterEach(() => tmp.cleanup());

describe('restore marks', () => {
  it('stores the full URL of a relative name, and gets and deletes it', async () => {
    const want = `${dst.url}/daily/2024-01-01`;
    expect(await createRestoreMark({ dataDir: data, backup: 'daily/2024-01-01', dst, openRemote })).toEqual({ backup: want });
    expect(await readFile(join(data, RESTORE_MARK), 'utf8')).toBe(want);
    expect(await getRestoreMark(data)).toEqual({ backup: want });
    expect(opened).toEqual([]);
    expect(await deleteRestoreMark(data)).toBe(true);
    expect(await deleteRestoreMark(data)).toBe(false);
    expect(await getRestoreMark(data)).toBeUndefined();
  });

  it('accepts a full URL, checking the backup there', async () => {
    const url = `${dst.url}/daily/2024-01-01/`;
    expect(await createRestoreMark({ dataDir: data, backup: url, dst, openRemote })).toEqual({ backup: `${dst.url}/daily/2024-01-01` });
    expect(opened).toEqual([`${dst.url}/daily/2024-01-01`]);
  });

  it('refuses missing or incomplete backups and bad names, writing nothing', async () => {
    const f = async (name: string, want: new (...a: never[]) => Error) => {
      await expect(createRestoreMark({ dataDir: data, backup: name, dst, openRemote })).rejects.toBeInstanceOf(want);
      expect(await getRestoreMark(data)).toBeUndefined();
    };
    await f('daily/2024-01-02', BackupNotFoundError);
    await f(`${dst.url}/latest`, BackupNotFoundError);
    await f('../etc', ParseError);
    await f('ftp://host/x', ParseError);
  });
});

describe('findPendingRestore', () => {
  it('prefers the mark, then an interrupted restore, else nothing', async () => {
    const f = async (files: Record<string, string>, want: unknown) => {
      const dir = join(tmp.path, `d${Math.random()}`);
      await makeTree(dir, files);
      expect(await findPendingRestore(dir)).toEqual(want);
    };
    await f({}, undefined);
    await f({ [RESTORE_MARK]: 's3://b/daily/x\n' }, { url: 's3://b/daily/x', from: 'mark' });
    await f({ [RESTORE_MARK]: 's3://b/x', [RESTORE_IN_PROGRESS]: 's3://b/y' }, { url: 's3://b/x', from: 'mark' });
    await f({ [RESTORE_IN_PROGRESS]: 's3://b/y' }, { url: 's3://b/y', from: 'in-progress' });
  });
});
