// Request paths are matched against routing rules and then forwarded. Backends decode percent
// escapes and resolve dot segments themselves, so a rule that matched the raw path could be
// bypassed with `%2e%2e`, `..`, `//` or `%2f`. We therefore decode, clean and re-encode the path
// once: rules see exactly the path the backend will act on.

/** PathError: the request path cannot be decoded (bad percent escape) or is not origin-form. */
export class PathError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PathError';
  }
}

// Characters RFC 3986 allows literally in a path (pchar plus "/"); anything else is escaped.
const PLAIN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
// A plain path still needs cleaning when it has empty or dot segments.
const NEEDS_CLEANING = /\/\/|\/\.\.?(?:\/|$)/;

/** NormalizedPath is the cleaned request path: `path` is decoded (for matching), `encoded` is what goes upstream. */
export interface NormalizedPath {
  readonly path: string;
  readonly encoded: string;
}

/**
 * normalizeRequestPath decodes percent escapes (including `%2f` and `%2e`), collapses repeated
 * slashes, resolves `.` and `..` (never above the root) and keeps a trailing slash. The result
 * always starts with "/". Throws PathError for a path that does not start with "/" or has a
 * malformed escape. Pure; O(length).
 */
export function normalizeRequestPath(raw: string): NormalizedPath {
  if (raw.charCodeAt(0) !== 47 /* / */) throw new PathError(`request path ${JSON.stringify(raw.slice(0, 200))} must start with "/"`);
  if (PLAIN_PATH.test(raw) && !NEEDS_CLEANING.test(raw)) return { path: raw, encoded: raw };
  let decoded: string;
  try {
    decoded = raw.includes('%') ? decodeURIComponent(raw) : raw;
  } catch (err) {
    throw new PathError(`cannot decode request path ${JSON.stringify(raw.slice(0, 200))}: malformed percent escape`, { cause: err });
  }
  const path = cleanPath(decoded);
  try {
    return { path, encoded: encodePath(path) };
  } catch (err) {
    throw new PathError(`cannot encode request path ${JSON.stringify(raw.slice(0, 200))}: ${(err as Error).message}`, { cause: err });
  }
}

/** cleanPath resolves empty, "." and ".." segments of a decoded absolute path. */
export function cleanPath(p: string): string {
  const out: string[] = [];
  const parts = p.split('/');
  for (const seg of parts) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      out.pop();
      continue;
    }
    out.push(seg);
  }
  const last = parts[parts.length - 1];
  const trailing = out.length > 0 && (last === '' || last === '.' || last === '..');
  return `/${out.join('/')}${trailing ? '/' : ''}`;
}

/** encodePath escapes every character that is not allowed literally in a path; "/" stays a separator. */
export function encodePath(p: string): string {
  if (PLAIN_PATH.test(p)) return p;
  let out = '';
  for (const ch of p) out += PLAIN_PATH.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}
