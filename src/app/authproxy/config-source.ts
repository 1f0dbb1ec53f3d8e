import { readFile } from 'node:fs/promises';
import { request } from 'undici';

/** readConfigText reads -auth.config from a local file or an http(s) URL (status 200 required). */
export async function readConfigText(location: string, timeoutMs = 30_000): Promise<string> {
  if (/^https?:\/\//i.test(location)) {
    let res;
    try {
      res = await request(location, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs, maxRedirections: 0 } as Parameters<typeof request>[1]);
    } catch (err) {
      throw new Error(`cannot fetch auth config from "${redactUrl(location)}": ${(err as Error).message}`, { cause: err });
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`cannot fetch auth config from "${redactUrl(location)}": status ${res.statusCode}: ${text.slice(0, 200)}`);
    return text;
  }
  try {
    return await readFile(location, 'utf8');
  } catch (err) {
    throw new Error(`cannot read auth config "${location}": ${(err as Error).message}`, { cause: err });
  }
}

function redactUrl(s: string): string {
  try {
    const u = new URL(s);
    if (u.password !== '') u.password = 'secret';
    return u.toString();
  } catch {
    return s;
  }
}
