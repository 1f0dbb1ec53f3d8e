// Restore must not run while a storage process uses the data directory. The storage engine
// holds a lock file at the data-dir root containing its pid as decimal text (DEFAULT_LOCK_FILE,
// the name VictoriaMetrics uses); a lock whose process is gone is stale. Callers with another
// convention pass their own DataDirLockCheck.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** DEFAULT_LOCK_FILE is the lock file name at the root of a storage data directory. */
export const DEFAULT_LOCK_FILE = 'flock.lock';

/** DataDirLockCheck resolves true while a live process holds `dataDir`. */
export type DataDirLockCheck = (dataDir: string) => Promise<boolean>;

/**
 * isDataDirLocked is the default DataDirLockCheck. It reads `<dataDir>/flock.lock`:
 * missing → not locked; a pid of a live process (other than this one) → locked; a dead pid →
 * stale, not locked; content that is not a pid → locked, since liveness cannot be told and
 * restoring under a running storage would destroy data. Our own pid counts as stale: in a
 * container every main process may be pid 1, so a lock naming our pid is a leftover.
 */
export const isDataDirLocked: DataDirLockCheck = async (dataDir) => {
  let text: string;
  try {
    text = await readFile(join(dataDir, DEFAULT_LOCK_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new Error(`cannot read lock file in "${dataDir}": ${(err as Error).message}`, { cause: err });
  }
  const m = /^\s*(\d+)\b/.exec(text);
  const pid = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  if (pid === process.pid) return false;
  return isAlive(pid);
};

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
