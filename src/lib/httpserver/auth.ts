
/** constantTimeEqual compares two strings without leaking where they differ (length aside). */
export function constantTimeEqual(a: string, b: string): boolean {
  const { timingSafeEqual } = process.getBuiltinModule('node:crypto');
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    // Compare anyway so the time taken does not depend on where a mismatch is.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** BasicCredentials are the decoded user and password of an `Authorization: Basic` header. */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/** parseBasicAuth decodes an Authorization header value; undefined when it is not valid Basic auth. */
export function parseBasicAuth(header: string | undefined): BasicCredentials | undefined {
  if (header === undefined) return undefined;
  const m = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (m === null) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** checkBasicAuth reports whether header carries exactly username and password. */
export function checkBasicAuth(header: string | undefined, username: string, password: string): boolean {
  const creds = parseBasicAuth(header);
  if (creds === undefined) return false;
  // Evaluate both comparisons so timing does not reveal which one failed.
  const userOk = constantTimeEqual(creds.username, username);
  const passOk = constantTimeEqual(creds.password, password);
  return userOk && passOk;
}
