import { readFile } from 'node:fs/promises';
import { redactUrl } from '../logger/index.ts';

/**
 * readConfigText reads a config (-auth.config, -ratelimit.config) from a local file or an http(s)
 * URL (status 200 required); `what` names it in errors ("auth config"). Passwords in the URL are
 * never shown.
 */
export async function readConfigText(location: string, what: string, timeoutMs = 30_000): Promise<string> {
  if (/^https?:\/\//i.test(location)) {
    // undici is loaded for URL sources only: its index costs a process ~20 MiB (lib/httpproxy/undici-core.ts).
    const { request } = await import('undici');
    let res;
    try {
      res = await request(location, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs, maxRedirections: 0 } as Parameters<typeof request>[1]);
    } catch (err) {
      throw new Error(`cannot fetch ${what} from "${redactUrl(location)}": ${(err as Error).message}`, { cause: err });
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`cannot fetch ${what} from "${redactUrl(location)}": status ${res.statusCode}: ${text.slice(0, 200)}`);
    return text;
  }
  try {
    return await readFile(location, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${what} "${location}": ${(err as Error).message}`, { cause: err });
  }
}
