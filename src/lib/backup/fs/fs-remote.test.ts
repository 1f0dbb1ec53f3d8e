import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyOf, describeRemoteFsContract, failingBody } from '../testing/remote-fs-contract.ts';
import { FsRemote } from './fs-remote.ts';

const base = await mkdtemp(join(tmpdir(), 'fs-remote-'));
let n = 0;
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describeRemoteFsContract('fs', {
  urlPrefix: 'fs:///',
  create: async () => new FsRemote({ root: join(base, `r${n++}`), fsync: false }),
});

describe('FsRemote', () => {
  it('refuses a relative root', () => {
    expect(() => new FsRemote({ root: 'rel/dir' })).toThrow(/absolute/);
  });

  it('formats its url from the root', () => {
    const f = (root: string, want: string) => expect(new FsRemote({ root }).url).toBe(want);
    f('/var/backups', 'fs:///var/backups');
    f('/var/backups/', 'fs:///var/backups');
    f('/', 'fs:///');
  });

  it('leaves no temporary files after failed writes and hides in-flight ones from list', async () => {
    const root = join(base, `t${n++}`);
    const r = new FsRemote({ root });
    await r.writeFile('d/keep', 'x');
    await expect(r.upload('d/bad', failingBody(Buffer.from('ab'), new Error('cut')), 4)).rejects.toThrow(/cut/);
    expect(await readdir(join(root, 'd'))).toEqual(['keep']);
    // a temporary file left by a crash is not listed
    await writeFile(join(root, 'd', '.part.tmp-0123456789abcdef'), 'partial');
    expect(await r.list('')).toEqual([{ path: 'd/keep', size: 1 }]);
  });

  it('prunes directories emptied by deletes', async () => {
    const root = join(base, `p${n++}`);
    const r = new FsRemote({ root });
    await r.upload('daily/2024-01-01/a/b/p', bodyOf(Buffer.from('x')), 1);
    await r.writeFile('latest/k', 'x');
    await r.delete('daily/2024-01-01/a/b/p');
    expect(await readdir(root)).toEqual(['latest']);
  });

  it('copies by hard link', async () => {
    const root = join(base, `l${n++}`);
    const r = new FsRemote({ root });
    await mkdir(root, { recursive: true });
    await r.writeFile('a', 'data');
    await r.copy('a', 'b/c');
    const [sa, sb] = await Promise.all([stat(join(root, 'a')), stat(join(root, 'b', 'c'))]);
    expect(sb.ino).toBe(sa.ino);
  });
});
