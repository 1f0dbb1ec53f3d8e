import { isIPv6 } from 'node:net';

/** ListenAddress is where a server binds. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * parseListenAddr parses -httpListenAddr forms ":8428", "127.0.0.1:8428", "host:8428" and
 * "[::1]:8428". An empty host binds every IPv4 address, or every address when enableTCP6; IPv6
 * addresses are refused unless enableTCP6 (the spec's -enableTCP6).
 */
export function parseListenAddr(addr: string, enableTCP6: boolean): ListenAddress {
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d{1,5})$/.exec(addr);
  if (m === null) throw new Error(`cannot parse listen address "${addr}": expected [host]:port, e.g. ":8428" or "[::1]:8428"`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`cannot parse listen address "${addr}": port ${port} is above 65535`);
  const v6 = m[1];
  if (v6 !== undefined) {
    if (!isIPv6(v6)) throw new Error(`cannot parse listen address "${addr}": "${v6}" is not an IPv6 address`);
    if (!enableTCP6) throw new Error(`cannot listen on IPv6 address "${addr}": pass -enableTCP6 to enable IPv6`);
    return { host: v6, port };
  }
  const host = m[2] ?? '';
  if (host === '') return { host: enableTCP6 ? '::' : '0.0.0.0', port };
  return { host, port };
}
