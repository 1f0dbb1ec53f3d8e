import { describe, expect, it } from 'vitest';
import { ParseError } from './errors.ts';
import { formatRemoteUrl, isRemoteUrl, joinRemoteUrl, parseRemoteUrl, type RemoteUrl } from './remote-url.ts';

describe('parseRemoteUrl', () => {
  it('parses every scheme', () => {
    const f = (raw: string, want: RemoteUrl) => {
      expect(parseRemoteUrl(raw)).toEqual(want);
      expect(parseRemoteUrl(formatRemoteUrl(want))).toEqual(want);
    };
    f('fs:///var/backups', { scheme: 'fs', bucket: '', path: '/var/backups' });
    f('fs:///var/backups/', { scheme: 'fs', bucket: '', path: '/var/backups' });
    f('fs:///', { scheme: 'fs', bucket: '', path: '/' });
    f('s3://bucket/path/to', { scheme: 's3', bucket: 'bucket', path: 'path/to' });
    f('s3://bucket', { scheme: 's3', bucket: 'bucket', path: '' });
    f('s3://bucket/', { scheme: 's3', bucket: 'bucket', path: '' });
    f('gs://my_bucket.example/node-0/', { scheme: 'gs', bucket: 'my_bucket.example', path: 'node-0' });
    f('azblob://container/daily/2024-01-01', { scheme: 'azblob', bucket: 'container', path: 'daily/2024-01-01' });
    f('s3://b/hourly/2024-01-01:05', { scheme: 's3', bucket: 'b', path: 'hourly/2024-01-01:05' });
  });

  it('rejects bad URLs with a message naming the problem', () => {
    const f = (raw: string, want: RegExp) => {
      expect(() => parseRemoteUrl(raw)).toThrow(ParseError);
      expect(() => parseRemoteUrl(raw)).toThrow(want);
    };
    f('', /missing scheme/);
    f('/var/backups', /missing scheme/);
    f('latest', /missing scheme/);
    f('ftp://host/x', /unsupported scheme "ftp"/);
    f('S3://bucket/x', /unsupported scheme "S3"/);
    f('fs://relative/path', /absolute path/);
    f('s3://', /missing bucket/);
    f('s3:///path', /missing bucket/);
    f('azblob:///path', /missing container/);
    f('s3://user:pw@bucket/x', /credentials/);
    f('s3://host:9000/x', /credentials and ports/);
    f('s3://bu cket/x', /invalid bucket name/);
    f('s3://bucket/x?versionId=1', /query strings/);
    f('s3://bucket/x#frag', /fragments/);
    f('s3://bucket/a//b', /empty segments/);
    f('s3://bucket/a/../b', /'\.\.'/);
    f('fs:///var/./x', /'\.'/);
    f('fs:///a\\b', /backslashes/);
  });
});

describe('joinRemoteUrl', () => {
  it('appends a relative path', () => {
    const f = (base: string, rel: string, want: string) => expect(formatRemoteUrl(joinRemoteUrl(parseRemoteUrl(base), rel))).toBe(want);
    f('fs:///var/b', 'daily/2024-01-01', 'fs:///var/b/daily/2024-01-01');
    f('fs:///', 'latest', 'fs:///latest');
    f('s3://bucket', 'latest', 's3://bucket/latest');
    f('gs://bucket/node-1', 'weekly/2020-53', 'gs://bucket/node-1/weekly/2020-53');
    f('gs://bucket/node-1', '', 'gs://bucket/node-1');
  });
});

describe('isRemoteUrl', () => {
  it('tells URLs from relative names', () => {
    const f = (s: string, want: boolean) => expect(isRemoteUrl(s)).toBe(want);
    f('s3://b/x', true);
    f('fs:///x', true);
    f('ftp://x', true);
    f('daily/2024-01-01', false);
    f('latest', false);
    f('hourly/2024-01-01:05', false);
  });
});
