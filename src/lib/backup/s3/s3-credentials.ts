// Credential and region resolution for the S3 backend, following the AWS conventions users
// know from the CLI: explicit INI files and profile first, then AWS_PROFILE, then "default".
// The INI parsing and profile semantics (source_profile, role assumption, credential_process)
// are the SDK's own, not re-implemented here.

import { fromIni } from '@aws-sdk/credential-provider-ini';
import { loadSharedConfigFiles } from '@smithy/core/config';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { S3RemoteOptions } from './s3-options.ts';

/**
 * resolveS3Credentials returns the credentials or provider to give the S3 client, or undefined
 * to let the SDK's default chain find them (environment, default files, metadata services).
 */
export function resolveS3Credentials(opts: S3RemoteOptions): AwsCredentialIdentityProvider | S3RemoteOptions['credentials'] {
  if (opts.credentials) return opts.credentials;
  if (opts.credsFilePath || opts.configFilePath || opts.configProfile) {
    return fromIni({
      profile: profileOf(opts),
      ...(opts.credsFilePath ? { filepath: opts.credsFilePath } : {}),
      ...(opts.configFilePath ? { configFilepath: opts.configFilePath } : {}),
    });
  }
  return undefined;
}

/**
 * resolveS3Region returns the region: the option; else the profile's `region` in the config
 * file (or credentials file); else AWS_REGION / AWS_DEFAULT_REGION; else us-east-1 (S3
 * compatible stores behind a custom endpoint usually ignore it).
 */
export async function resolveS3Region(opts: S3RemoteOptions): Promise<string> {
  if (opts.region) return opts.region;
  const env = opts.env ?? process.env;
  const profile = profileOf(opts);
  const files = await loadSharedConfigFiles({
    ...(opts.credsFilePath ? { filepath: opts.credsFilePath } : {}),
    ...(opts.configFilePath ? { configFilepath: opts.configFilePath } : {}),
  }).catch((err: unknown) => {
    throw new Error(`cannot read AWS config files: ${(err as Error).message}`, { cause: err });
  });
  return files.configFile[profile]?.region ?? files.credentialsFile[profile]?.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
}

function profileOf(opts: S3RemoteOptions): string {
  return opts.configProfile || (opts.env ?? process.env).AWS_PROFILE || 'default';
}
