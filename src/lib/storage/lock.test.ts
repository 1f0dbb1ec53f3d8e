import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirLock, LOCK_FILE, readLockPid } from './lock.ts';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'strata-lock-'));
  made.push(d);
  return d;
};

describe('DirLock', () => {
  it('records the pid in a lock file that is complete when it appears, and leaves no temp files', () => {
    const dir = tempDir();
    const lock = DirLock.acquire(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
    expect(readLockPid(dir)).toBe(process.pid);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes over an empty lock file (a crash of an older version between create and write)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), '');
    const lock = DirLock.acquire(dir);
    expect(readLockPid(dir)).toBe(process.pid);
    lock.release();
  });

  it('refuses a lock of a live process and leaves its file as it was', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), '1\n');
    expect(() => DirLock.acquire(dir)).toThrow(/cannot lock data directory ".*": process 1 holds it/);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe('1\n');
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
  });
});
