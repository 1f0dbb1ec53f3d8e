import { closeSync, existsSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from './common/errors.ts';

/** LOCK_FILE holds the pid of the process that has the data directory open. */
export const LOCK_FILE = 'flock.lock';
/** RESTORE_IN_PROGRESS is written by the backup manager while it restores into the directory. */
export const RESTORE_IN_PROGRESS = 'restore-in-progress';

// Locks held by this process, so a second open in the same process is refused too.
const heldHere = new Set<string>();

/** isProcessAlive reports whether a process with this pid exists (signal 0 probes without killing). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * readLockPid returns the pid recorded in dir's lock file, or undefined when there is no lock
 * file or it holds no pid. The backup manager uses it (with isProcessAlive) to refuse restoring
 * into a directory a live storage has open.
 */
export function readLockPid(dir: string): number | undefined {
  return readPid(join(dir, LOCK_FILE));
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

// Not synced to disk: the pid only tells whether a live process holds the directory, and after a
// crash of the machine none does, whatever the file holds (an fsync was ~1/4 of a start's disk waits).
function writePidFile(path: string): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * DirLock is an exclusive lock on a data directory: a lock file holding the owner's pid, which
 * appears complete or not at all (written as a temp file, then hard-linked into place, which
 * fails when the name exists). A lock file whose pid is not a live process (a crash left it) is
 * taken over; a live owner, or an earlier open in this very process, makes acquire throw.
 */
export class DirLock {
  readonly path: string;
  #released = false;

  private constructor(path: string) {
    this.path = path;
  }

  static acquire(dir: string): DirLock {
    const path = join(dir, LOCK_FILE);
    if (heldHere.has(path)) throw new Error(`cannot lock data directory "${dir}": it is already open in this process`);
    const fail = (why: string, cause?: unknown): never => {
      throw new Error(`cannot lock data directory "${dir}": ${why}`, cause === undefined ? undefined : { cause });
    };
    const held = (owner: number | undefined): boolean => owner !== undefined && owner !== process.pid && isProcessAlive(owner);
    const tmp = `${path}.${process.pid}.tmp`;
    const aside = `${path}.${process.pid}.stale`;
    try {
      writePidFile(tmp);
    } catch (err) {
      fail(errorMessage(err), err);
    }
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          linkSync(tmp, path);
          heldHere.add(path);
          return new DirLock(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') fail(errorMessage(err), err);
        }
        const owner = readLockPid(dir);
        // Our own pid in a lock we do not hold is a leftover of an earlier life of this pid (a
        // restarted container is pid 1 again): stale.
        if (held(owner)) fail(`process ${owner} holds it (lock file "${path}"); stop that process first`);
        // Move the stale file aside, then check that what moved is the stale one: another
        // process may have taken it over between the read and the rename.
        try {
          renameSync(path, aside);
        } catch {
          continue; // gone already: retry the link
        }
        const moved = readPid(aside);
        if (held(moved)) {
          try {
            linkSync(aside, path);
          } catch {
            // a third process has linked its own lock meanwhile; it holds the directory
          }
          unlinkQuietly(aside);
          fail(`process ${moved} holds it (lock file "${path}"); stop that process first`);
        }
        unlinkQuietly(aside);
      }
      return fail(`lock file "${path}" keeps reappearing`);
    } finally {
      unlinkQuietly(tmp);
    }
  }

  /** release removes the lock file. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    heldHere.delete(this.path);
    if (existsSync(this.path)) unlinkSync(this.path);
  }
}
