// PROXY protocol v1 (text) and v2 (binary) header parsing, as sent by load balancers (HAProxy,
// AWS NLB, …) before the client's bytes. Pure: it looks at the bytes received so far.

/** ProxyHeaderResult says whether the bytes so far hold a whole header, need more, or are not one. */
export type ProxyHeaderResult =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'header'; readonly length: number; readonly source?: { readonly address: string; readonly port: number } }
  | { readonly kind: 'invalid'; readonly reason: string };

const V1_PREFIX = Buffer.from('PROXY ');
const V1_MAX = 107;
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
/** V2_MAX_BODY caps the v2 address+TLV block we are willing to buffer. */
const V2_MAX_BODY = 1536;

const INCOMPLETE: ProxyHeaderResult = { kind: 'incomplete' };

/** parseProxyHeader inspects the first bytes of a connection. */
export function parseProxyHeader(buf: Buffer): ProxyHeaderResult {
  if (startsWithPrefixOf(buf, V1_PREFIX)) return buf.length < V1_PREFIX.length ? INCOMPLETE : parseV1(buf);
  if (startsWithPrefixOf(buf, V2_SIGNATURE)) return buf.length < 16 ? INCOMPLETE : parseV2(buf);
  return { kind: 'invalid', reason: 'the connection does not start with a PROXY protocol v1 or v2 header' };
}

function startsWithPrefixOf(buf: Buffer, sig: Buffer): boolean {
  const n = Math.min(buf.length, sig.length);
  return buf.subarray(0, n).equals(sig.subarray(0, n));
}

function parseV1(buf: Buffer): ProxyHeaderResult {
  const end = buf.indexOf('\r\n');
  if (end < 0) return buf.length >= V1_MAX ? { kind: 'invalid', reason: 'PROXY v1 header is longer than 107 bytes' } : INCOMPLETE;
  if (end + 2 > V1_MAX) return { kind: 'invalid', reason: 'PROXY v1 header is longer than 107 bytes' };
  const line = buf.subarray(0, end).toString('latin1');
  const parts = line.split(' ');
  const length = end + 2;
  if (parts[1] === 'UNKNOWN') return { kind: 'header', length };
  if (parts.length !== 6 || (parts[1] !== 'TCP4' && parts[1] !== 'TCP6')) {
    return { kind: 'invalid', reason: `malformed PROXY v1 header ${JSON.stringify(line)}` };
  }
  const address = parts[2]!;
  const port = Number(parts[4]);
  const validAddr = parts[1] === 'TCP4' ? isIPv4Text(address) : address.includes(':');
  if (!validAddr || !/^\d{1,5}$/.test(parts[4]!) || port > 65535) {
    return { kind: 'invalid', reason: `malformed PROXY v1 header ${JSON.stringify(line)}` };
  }
  return { kind: 'header', length, source: { address, port } };
}

function parseV2(buf: Buffer): ProxyHeaderResult {
  const verCmd = buf[12]!;
  if (verCmd >> 4 !== 2) return { kind: 'invalid', reason: `unsupported PROXY v2 version ${verCmd >> 4}` };
  const command = verCmd & 0x0f;
  if (command > 1) return { kind: 'invalid', reason: `unsupported PROXY v2 command ${command}` };
  const bodyLen = buf.readUInt16BE(14);
  if (bodyLen > V2_MAX_BODY) return { kind: 'invalid', reason: `PROXY v2 header of ${bodyLen} bytes is longer than ${V2_MAX_BODY}` };
  const length = 16 + bodyLen;
  if (buf.length < length) return INCOMPLETE;
  // LOCAL connections (health checks of the balancer itself) keep the real peer address.
  if (command === 0) return { kind: 'header', length };
  const family = buf[13]! >> 4;
  const body = buf.subarray(16, length);
  if (family === 1) {
    if (bodyLen < 12) return { kind: 'invalid', reason: 'PROXY v2 IPv4 address block is too short' };
    return { kind: 'header', length, source: { address: Array.from(body.subarray(0, 4)).join('.'), port: body.readUInt16BE(8) } };
  }
  if (family === 2) {
    if (bodyLen < 36) return { kind: 'invalid', reason: 'PROXY v2 IPv6 address block is too short' };
    return { kind: 'header', length, source: { address: formatIPv6(body.subarray(0, 16)), port: body.readUInt16BE(32) } };
  }
  // AF_UNSPEC and AF_UNIX carry no IP address; the connection's own address stays.
  if (family === 0 || family === 3) return { kind: 'header', length };
  return { kind: 'invalid', reason: `unsupported PROXY v2 address family ${family}` };
}

function isIPv4Text(s: string): boolean {
  const octets = s.split('.');
  return octets.length === 4 && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

function formatIPv6(b: Buffer): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  return groups.join(':');
}
