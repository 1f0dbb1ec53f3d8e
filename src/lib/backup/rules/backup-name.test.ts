import { describe, expect, it } from 'vitest';
import { ParseError } from '../errors.ts';
import { backupKind, checkBackupName } from './backup-name.ts';

describe('backupKind', () => {
  it('classifies latest and well-formed interval folders', () => {
    const f = (name: string, want: string | undefined) => expect(backupKind(name)).toBe(want);
    f('latest', 'latest');
    f('hourly/2024-01-01:05', 'hourly');
    f('daily/2024-01-01', 'daily');
    f('weekly/2020-53', 'weekly');
    f('monthly/2024-01', 'monthly');
    f('daily', undefined);
    f('daily/2024-01-01/x', undefined);
    f('hourly/2024-01-01', undefined);
    f('latest/x', undefined);
    f('custom', undefined);
  });
});

describe('checkBackupName', () => {
  it('accepts clean relative paths and rejects the rest', () => {
    const ok = (name: string) => expect(checkBackupName(name)).toBe(name);
    const bad = (name: string, want: RegExp) => {
      expect(() => checkBackupName(name)).toThrow(ParseError);
      expect(() => checkBackupName(name)).toThrow(want);
    };
    ok('latest');
    ok('daily/2024-01-01');
    ok('custom/name');
    bad('', /empty/);
    bad('/latest', /empty segments/);
    bad('daily/', /empty segments/);
    bad('../etc', /'\.\.'/);
    bad('latest/backup_complete.ignore', /reserved/);
  });
});
