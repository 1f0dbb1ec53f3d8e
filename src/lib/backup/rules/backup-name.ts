import { ParseError } from '../errors.ts';
import { checkSegments } from '../remote-fs.ts';
import type { Interval } from './interval-name.ts';

/** LATEST is the backup every run syncs before copying into interval folders. */
export const LATEST = 'latest';

const NAME_RES: readonly (readonly [Interval, RegExp])[] = [
  ['hourly', /^hourly\/\d{4}-\d{2}-\d{2}:\d{2}$/],
  ['daily', /^daily\/\d{4}-\d{2}-\d{2}$/],
  ['weekly', /^weekly\/\d{4}-\d{2}$/],
  ['monthly', /^monthly\/\d{4}-\d{2}$/],
];

/**
 * backupKind classifies a backup name: 'latest', the interval of a well-formed interval name
 * (`daily/2024-01-31`), or undefined for anything else. Only these names are listed and
 * subject to retention.
 */
export function backupKind(name: string): 'latest' | Interval | undefined {
  if (name === LATEST) return 'latest';
  for (const [interval, re] of NAME_RES) if (re.test(name)) return interval;
  return undefined;
}

/**
 * checkBackupName returns `name` when it can name a backup folder: a relative '/'-separated
 * path without empty, '.' or '..' segments, none of which ends in `.ignore` (marker names).
 * It throws ParseError otherwise.
 */
export function checkBackupName(name: string): string {
  if (name === '') throw new ParseError('backup name must not be empty');
  try {
    checkSegments(name, 'backup name');
  } catch (err) {
    throw new ParseError(`invalid backup name "${name}": ${(err as Error).message}`, { cause: err });
  }
  if (name.split('/').some((s) => s.endsWith('.ignore'))) {
    throw new ParseError(`invalid backup name "${name}": segments ending in ".ignore" are reserved for markers`);
  }
  return name;
}
