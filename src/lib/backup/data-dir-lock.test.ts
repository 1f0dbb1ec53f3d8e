import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOCK_FILE, isDataDirLocked } from './data-dir-lock.ts';

const dir = await mkdtemp(join(tmpdir(), 'lock-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('exit', r));
  return child.pid ?? 0;
}

describe('isDataDirLocked', () => {
  it('reads the pid in flock.lock', async () => {
    const f = async (content: string | undefined, want: boolean) => {
      await rm(join(dir, DEFAULT_LOCK_FILE), { force: true });
      if (content !== undefined) await writeFile(join(dir, DEFAULT_LOCK_FILE), content);
      expect(await isDataDirLocked(dir)).toBe(want);
    };
    await f(undefined, false); // no lock file
    await f(String(process.ppid), true); // a live process
    await f(`${process.ppid}\nextra`, true);
    await f(String(await deadPid()), false); // stale
    await f(String(process.pid), false); // our own pid: a leftover (containers reuse pid 1)
    // no readable pid: stale, as the storage itself treats it (src/lib/storage/lock.ts)
    await f('', false);
    await f('not a pid', false);
    await f('-5', false);
    await f(`${process.ppid}abc`, true); // leading digits, parsed as the storage parses them
  });

  it('looks again at a pid-less lock, which a starting storage writes in two steps', async () => {
    const lock = join(dir, DEFAULT_LOCK_FILE);
    await writeFile(lock, '');
    const check = isDataDirLocked(dir);
    setTimeout(() => void writeFile(lock, String(process.ppid)), 20);
    expect(await check).toBe(true);
  });

  it('treats a missing data dir as unlocked', async () => {
    expect(await isDataDirLocked(join(dir, 'nope'))).toBe(false);
  });
});
