/**
 * parseNodeAddress reads one -storageNode entry, `host:port`, `host` (the role's default port
 * is added) or `[ipv6]:port`, and returns it as `host:port`. Throws an Error naming the entry.
 */
export function parseNodeAddress(entry: string, defaultPort: number): string {
  const text = entry.trim();
  const bad = (why: string) => new Error(`invalid storage node address ${JSON.stringify(entry)}: ${why}`);
  if (text === '') throw bad('it is empty');
  if (/[\s/?#@]/.test(text)) throw bad('want host:port without a scheme, path or spaces');
  let host: string;
  let port: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) throw bad('unterminated "["');
    host = text.slice(0, end + 1);
    const rest = text.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) throw bad('want [ipv6]:port');
    port = rest === '' ? undefined : rest.slice(1);
  } else {
    const colon = text.lastIndexOf(':');
    if (colon !== text.indexOf(':')) throw bad('an IPv6 address must be written in brackets, as [::1]:8400');
    host = colon < 0 ? text : text.slice(0, colon);
    port = colon < 0 ? undefined : text.slice(colon + 1);
  }
  if (host === '' || host === '[]') throw bad('the host is empty');
  if (port === undefined) return `${host}:${defaultPort}`;
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw bad(`port ${JSON.stringify(port)} is not a number from 1 to 65535`);
  return `${host}:${Number(port)}`;
}

/** parseNodeAddresses parses every -storageNode entry and rejects a node given twice. */
export function parseNodeAddresses(entries: readonly string[], defaultPort: number): string[] {
  const out: string[] = [];
  for (const e of entries) {
    const a = parseNodeAddress(e, defaultPort);
    if (out.includes(a)) throw new Error(`storage node ${a} is given twice in -storageNode`);
    out.push(a);
  }
  return out;
}
