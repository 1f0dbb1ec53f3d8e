import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParseError } from '../errors.ts';
import { tempDir, type TempDir } from '../testing/tree.ts';
import { resolveS3Credentials, resolveS3Region } from './s3-credentials.ts';
import { parseS3StorageClass, type S3RemoteOptions } from './s3-options.ts';

let tmp: TempDir;
let creds: string;
let config: string;
const missing = '/nonexistent/aws/file';
beforeAll(async () => {
  tmp = await tempDir('aws');
  creds = join(tmp.path, 'credentials');
  config = join(tmp.path, 'config');
  await writeFile(creds, '[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = defaultsecret\n\n[backup]\naws_access_key_id = BACKUPKEY\naws_secret_access_key = backupsecret\naws_session_token = tok\n');
  await writeFile(config, '[default]\nregion = eu-west-1\n\n[profile backup]\nregion = ap-south-1\n');
});
afterAll(() => tmp.cleanup());

const base: S3RemoteOptions = { bucket: 'b', prefix: '', env: {} };

describe('resolveS3Credentials', () => {
  it('reads the profile from the credentials file', async () => {
    const f = async (opts: Partial<S3RemoteOptions>, wantKey: string) => {
      const c = resolveS3Credentials({ ...base, ...opts });
      expect(typeof c).toBe('function');
      const id = await (c as () => Promise<{ accessKeyId: string }>)();
      expect(id.accessKeyId).toBe(wantKey);
    };
    await f({ credsFilePath: creds, configFilePath: missing }, 'DEFAULTKEY');
    await f({ credsFilePath: creds, configFilePath: config, configProfile: 'backup' }, 'BACKUPKEY');
  });

  it('prefers explicit credentials and otherwise leaves the default chain to the SDK', () => {
    const explicit = { accessKeyId: 'A', secretAccessKey: 'S' };
    expect(resolveS3Credentials({ ...base, credentials: explicit, credsFilePath: creds })).toBe(explicit);
    expect(resolveS3Credentials(base)).toBeUndefined();
  });

  it('fails clearly for an unknown profile', async () => {
    const c = resolveS3Credentials({ ...base, credsFilePath: creds, configFilePath: missing, configProfile: 'nope' });
    await expect((c as () => Promise<unknown>)()).rejects.toThrow(/nope/);
  });
});

describe('resolveS3Region', () => {
  it('takes the option, then the profile in the config file, then the environment, then us-east-1', async () => {
    const f = async (opts: Partial<S3RemoteOptions>, want: string) => expect(await resolveS3Region({ ...base, ...opts })).toBe(want);
    await f({ region: 'us-west-2', configFilePath: config }, 'us-west-2');
    await f({ configFilePath: config, credsFilePath: creds }, 'eu-west-1');
    await f({ configFilePath: config, credsFilePath: creds, configProfile: 'backup' }, 'ap-south-1');
    await f({ configFilePath: config, credsFilePath: creds, env: { AWS_PROFILE: 'backup' } }, 'ap-south-1');
    await f({ configFilePath: missing, credsFilePath: missing, env: { AWS_REGION: 'sa-east-1' } }, 'sa-east-1');
    await f({ configFilePath: missing, credsFilePath: missing, env: {} }, 'us-east-1');
  });
});

describe('parseS3StorageClass', () => {
  it('accepts the spec list and rejects the rest', () => {
    const f = (s: string, want: string | undefined) => expect(parseS3StorageClass(s)).toBe(want);
    f('', undefined);
    f('STANDARD', 'STANDARD');
    f('GLACIER_IR', 'GLACIER_IR');
    f('DEEP_ARCHIVE', 'DEEP_ARCHIVE');
    expect(() => parseS3StorageClass('standard')).toThrow(ParseError);
    expect(() => parseS3StorageClass('EXPRESS_ONEZONE')).toThrow(/use one of GLACIER, DEEP_ARCHIVE/);
  });
});
