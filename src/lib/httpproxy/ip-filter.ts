import { BlockList, isIP } from 'node:net';

/** IpFilterError: an allow/deny entry is not an IP address or CIDR network. */
export class IpFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IpFilterError';
  }
}

/**
 * IpFilter allows or denies client addresses: the deny list wins over the allow list, and an empty
 * allow list allows every address that is not denied. IPv4-mapped IPv6 addresses
 * ("::ffff:10.0.0.1") are checked as IPv4. Immutable after construction.
 */
export class IpFilter {
  readonly #allow: BlockList | undefined;
  readonly #deny: BlockList | undefined;

  /** Throws IpFilterError naming the first invalid entry. */
  constructor(allow: readonly string[], deny: readonly string[]) {
    this.#allow = allow.length === 0 ? undefined : buildList(allow, 'allow_list');
    this.#deny = deny.length === 0 ? undefined : buildList(deny, 'deny_list');
  }

  /** allows reports whether ip (as Node reports a peer address) may pass. */
  allows(ip: string): boolean {
    const [addr, family] = splitFamily(ip);
    if (family === undefined) return false;
    if (this.#deny?.check(addr, family) === true) return false;
    return this.#allow === undefined || this.#allow.check(addr, family);
  }
}

function splitFamily(ip: string): [string, 'ipv4' | 'ipv6' | undefined] {
  if (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4) return [ip.slice(7), 'ipv4'];
  const v = isIP(ip);
  return [ip, v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined];
}

function buildList(entries: readonly string[], what: string): BlockList {
  const list = new BlockList();
  for (const e of entries) {
    const slash = e.indexOf('/');
    const addr = slash < 0 ? e : e.slice(0, slash);
    const v = isIP(addr);
    if (v === 0) throw new IpFilterError(`${what} entry ${JSON.stringify(e)} is not an IP address or CIDR network`);
    const family = v === 4 ? 'ipv4' : 'ipv6';
    if (slash < 0) {
      list.addAddress(addr, family);
      continue;
    }
    const bitsText = e.slice(slash + 1);
    const bits = Number(bitsText);
    if (!/^\d{1,3}$/.test(bitsText) || bits > (v === 4 ? 32 : 128)) {
      throw new IpFilterError(`${what} entry ${JSON.stringify(e)} has an invalid prefix length`);
    }
    list.addSubnet(addr, bits, family);
  }
  return list;
}
