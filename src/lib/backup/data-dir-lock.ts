// Restore must not run while a storage process uses the data directory. The storage engine
// holds a lock file at the data-dir root containing its pid as decimal text (DEFAULT_LOCK_FILE,
// the name VictoriaMetrics uses; src/lib/storage/lock.ts writes it); a lock whose process is
// gone is stale. The rule here is the storage's own, so that the two never disagree about who
// holds a directory. Callers with another convention pass their own DataDirLockCheck.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** DEFAULT_LOCK_FILE is the lock file name at the root of a storage data directory. */
export const DEFAULT_LOCK_FILE = 'flock.lock';

/** DataDirLockCheck resolves true while a live process holds `dataDir`. */
export type DataDirLockCheck = (dataDir: string) => Promise<boolean>;

// The storage creates the lock file (O_EXCL) and then writes its pid: a reader can see it
// empty for a moment. Before calling a pid-less lock stale, look again after this pause.
const PIDLESS_RECHECK_MS = 100;

/**
 * isDataDirLocked is the default DataDirLockCheck, with the storage's rule (lock.ts
 * `DirLock.acquire`): `<dataDir>/flock.lock` missing → not locked; holding the pid of a live
 * process other than this one → locked; a dead pid → stale, not locked; no readable pid (also
 * after a second look 100 ms later, in case the storage was between creating and writing the
 * file) → stale, not locked, since the storage itself would take such a lock over. Our own pid
 * counts as stale: in a container every main process may be pid 1, so a lock naming our pid
 * is a leftover.
 */
export const isDataDirLocked: DataDirLockCheck = async (dataDir) => {
  let pid = await readLockPid(dataDir);
  if (pid === null) return false;
  if (pid === undefined) {
    await sleep(PIDLESS_RECHECK_MS);
    pid = await readLockPid(dataDir);
    if (pid === null || pid === undefined) return false;
  }
  if (pid === process.pid) return false;
  return isAlive(pid);
};

// readLockPid returns the pid in the lock file, undefined when the file holds no pid, and null
// when there is no lock file. The pid is parsed as the storage parses it (leading decimal digits).
async function readLockPid(dataDir: string): Promise<number | undefined | null> {
  let text: string;
  try {
    text = await readFile(join(dataDir, DEFAULT_LOCK_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`cannot read lock file in "${dataDir}": ${(err as Error).message}`, { cause: err });
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
