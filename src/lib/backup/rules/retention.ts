// Retention (SPEC "-keepLast*", DECISIONS.md "Retention"): per interval keep the newest N
// backups by name; -1 (or absent) turns retention off for that interval; 0 deletes all of it;
// locked backups are kept; `latest` is never deleted.

import { backupKind } from './backup-name.ts';
import { INTERVALS, type Interval } from './interval-name.ts';

/** RetentionBackup is what retention needs to know about one backup. */
export interface RetentionBackup {
  readonly name: string;
  readonly locked?: boolean | undefined;
}

/** KeepLast maps an interval to how many of its newest backups to keep (-1 = retention off). */
export type KeepLast = Readonly<Partial<Record<Interval, number>>>;

/**
 * selectForDeletion returns the names of the backups that retention deletes, sorted. The
 * newest N are counted among all backups of the interval, locked ones included; of the
 * others, locked ones are kept too. Names that are not interval folders are never selected.
 * It throws RangeError for a keepLast value that is not an integer ≥ -1.
 */
export function selectForDeletion(backups: readonly RetentionBackup[], keepLast: KeepLast): string[] {
  const out: string[] = [];
  for (const interval of INTERVALS) {
    const n = keepLast[interval] ?? -1;
    if (!Number.isSafeInteger(n) || n < -1) {
      throw new RangeError(`keepLast for ${interval} must be an integer ≥ -1, got ${n}`);
    }
    if (n === -1) continue;
    const ofInterval = backups.filter((b) => backupKind(b.name) === interval);
    ofInterval.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)); // newest first
    for (const b of ofInterval.slice(n)) if (!b.locked) out.push(b.name);
  }
  return out.sort();
}
