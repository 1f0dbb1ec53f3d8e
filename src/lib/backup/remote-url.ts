// Backup locations are URLs: `-dst`, a restore mark's backup, a restore source.
//   fs:///<absolute local path>
//   s3://<bucket>/<path>      gs://<bucket>/<path>      azblob://<container>/<path>
// The path of a cloud URL is an object-name prefix and may be empty (the bucket root).

import { ParseError } from './errors.ts';
import { checkSegments } from './remote-fs.ts';

/** RemoteScheme is a supported URL scheme. */
export type RemoteScheme = 'fs' | 's3' | 'gs' | 'azblob';

/** REMOTE_SCHEMES lists the supported schemes in the order messages show them. */
export const REMOTE_SCHEMES: readonly RemoteScheme[] = ['fs', 's3', 'gs', 'azblob'];

/**
 * RemoteUrl is a parsed backup location. For `fs`, bucket is '' and path is an absolute local
 * path without a trailing '/' ('/' for the filesystem root). For the clouds, bucket is the
 * bucket or container and path is the prefix without leading or trailing '/' ('' = root).
 */
export interface RemoteUrl {
  readonly scheme: RemoteScheme;
  readonly bucket: string;
  readonly path: string;
}

const BUCKET_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,221}$/;
// eslint-disable-next-line no-control-regex
const FORBIDDEN_RE = /[\u0000-\u001f\u007f?#\\]/;

/**
 * parseRemoteUrl parses a backup location URL. It throws ParseError naming the problem for an
 * unknown scheme, a relative fs path, a missing or invalid bucket, query strings, fragments,
 * credentials, or path segments that are empty, '.' or '..'.
 */
export function parseRemoteUrl(raw: string): RemoteUrl {
  const sep = raw.indexOf('://');
  if (sep <= 0) {
    throw new ParseError(`cannot parse backup URL "${raw}": missing scheme; use one of ${schemeList()}`);
  }
  const scheme = raw.slice(0, sep);
  const rest = raw.slice(sep + 3);
  if (!isScheme(scheme)) {
    throw new ParseError(`cannot parse backup URL "${raw}": unsupported scheme "${scheme}"; use one of ${schemeList()}`);
  }
  if (FORBIDDEN_RE.test(rest)) {
    throw new ParseError(`cannot parse backup URL "${raw}": query strings, fragments, backslashes and control characters are not allowed`);
  }
  return scheme === 'fs' ? parseFsUrl(raw, rest) : parseCloudUrl(raw, scheme, rest);
}

function parseFsUrl(raw: string, rest: string): RemoteUrl {
  if (!rest.startsWith('/')) {
    throw new ParseError(`cannot parse backup URL "${raw}": fs URLs need an absolute path, as fs:///var/backups`);
  }
  const path = trimSlashes(rest);
  if (path !== '') checkUrlSegments(raw, path);
  return { scheme: 'fs', bucket: '', path: `/${path}` };
}

function parseCloudUrl(raw: string, scheme: RemoteScheme, rest: string): RemoteUrl {
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const what = scheme === 'azblob' ? 'container' : 'bucket';
  if (bucket === '') {
    throw new ParseError(`cannot parse backup URL "${raw}": missing ${what} name, as ${scheme}://<${what}>/<path>`);
  }
  if (bucket.includes('@') || bucket.includes(':')) {
    throw new ParseError(`cannot parse backup URL "${raw}": credentials and ports do not belong in the URL; pass them as options`);
  }
  if (!BUCKET_RE.test(bucket)) {
    throw new ParseError(`cannot parse backup URL "${raw}": invalid ${what} name "${bucket}" (letters, digits, '.', '_', '-')`);
  }
  const path = slash < 0 ? '' : trimSlashes(rest.slice(slash + 1));
  if (path !== '') checkUrlSegments(raw, path);
  return { scheme, bucket, path };
}

/** formatRemoteUrl is the inverse of parseRemoteUrl: parse(format(u)) equals u. */
export function formatRemoteUrl(u: RemoteUrl): string {
  if (u.scheme === 'fs') return `fs://${u.path}`;
  return u.path === '' ? `${u.scheme}://${u.bucket}` : `${u.scheme}://${u.bucket}/${u.path}`;
}

/** joinRemoteUrl returns the URL of `relPath` (a checked relative remote path) under `u`. */
export function joinRemoteUrl(u: RemoteUrl, relPath: string): RemoteUrl {
  if (relPath === '') return u;
  if (u.scheme === 'fs') return { ...u, path: u.path === '/' ? `/${relPath}` : `${u.path}/${relPath}` };
  return { ...u, path: u.path === '' ? relPath : `${u.path}/${relPath}` };
}

/** isRemoteUrl tells whether `s` looks like a URL (has a scheme) rather than a relative name. */
export function isRemoteUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s);
}

function checkUrlSegments(raw: string, path: string): void {
  try {
    checkSegments(path, 'path');
  } catch (err) {
    throw new ParseError(`cannot parse backup URL "${raw}": ${(err as Error).message}`, { cause: err });
  }
}

function trimSlashes(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s[start] === '/') start++;
  while (end > start && s[end - 1] === '/') end--;
  return s.slice(start, end);
}

function isScheme(s: string): s is RemoteScheme {
  return (REMOTE_SCHEMES as readonly string[]).includes(s);
}

function schemeList(): string {
  return REMOTE_SCHEMES.map((s) => (s === 'fs' ? 'fs:///<path>' : `${s}://<bucket>/<path>`)).join(', ');
}
