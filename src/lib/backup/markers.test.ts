import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { formatBackupMetadata, isBackupMarker, parseBackupMetadata } from './markers.ts';

describe('backup metadata', () => {
  it('round-trips RFC 3339 times', () => {
    const text = formatBackupMetadata(Date.UTC(2024, 0, 31, 23, 59, 1), Date.UTC(2024, 1, 1, 0, 0, 2, 500));
    expect(JSON.parse(text)).toEqual({ created_at: '2024-01-31T23:59:01.000Z', completed_at: '2024-02-01T00:00:02.500Z' });
    expect(parseBackupMetadata(text)).toEqual(JSON.parse(text));
    const withTotals = formatBackupMetadata(0, 1, { files: 3, bytes: 1024 });
    expect(parseBackupMetadata(withTotals)).toEqual({ created_at: '1970-01-01T00:00:00.000Z', completed_at: '1970-01-01T00:00:00.001Z', files: 3, bytes: 1024 });
  });

  it('accepts offsets and rejects malformed content', () => {
    const ok = (text: string) => expect(() => parseBackupMetadata(text)).not.toThrow();
    const bad = (text: string, want: RegExp) => {
      expect(() => parseBackupMetadata(text)).toThrow(ParseError);
      expect(() => parseBackupMetadata(text)).toThrow(want);
    };
    ok('{"created_at":"2024-01-01T00:00:00+02:00","completed_at":"2024-01-01T00:00:00Z","extra":1}');
    bad('', /cannot parse backup metadata/);
    bad('[]', /JSON object/);
    bad('null', /JSON object/);
    bad('{"created_at":"2024-01-01T00:00:00Z"}', /"completed_at"/);
    bad('{"created_at":"yesterday","completed_at":"2024-01-01T00:00:00Z"}', /"created_at"/);
    bad('{"created_at":"2024-13-45T99:00:00Z","completed_at":"2024-01-01T00:00:00Z"}', /"created_at"/);
    const t = '"created_at":"2024-01-01T00:00:00Z","completed_at":"2024-01-01T00:00:00Z"';
    bad(`{${t},"files":2}`, /"bytes" must be a non-negative integer/);
    bad(`{${t},"files":-1,"bytes":0}`, /"files" must be a non-negative integer/);
    bad(`{${t},"files":1.5,"bytes":0}`, /"files"/);
    bad(`{${t},"files":"1","bytes":0}`, /"files"/);
  });

  it('knows the backup-folder markers', () => {
    const f = (p: string, want: boolean) => expect(isBackupMarker(p)).toBe(want);
    f('backup_complete.ignore', true);
    f('backup_metadata.ignore', true);
    f('backup_locked.ignore', true);
    f('backup_restore.ignore', false);
    f('x/backup_complete.ignore', false);
  });
});
