// isRequestURI is the API server's `format: uri` check: Go's url.ParseRequestURI succeeds. That
// accepts what a browser would call relative ("/path"), opaque ("mailto:x") and empty-host
// ("http://") URLs, and refuses bare words, control characters and malformed hosts or ports, so
// it differs from RFC 3986 checkers such as ajv-formats'. Ported from Go's net/url (parse with
// viaRequest=true, getScheme, parseAuthority, parseHost, unescape).

import { isIPv6 } from 'node:net';

const ALNUM = /^[A-Za-z0-9]$/;
const HEX = /^[0-9A-Fa-f]$/;
// Characters that may appear unescaped in a host besides letters and digits (net/url shouldEscape, encodeHost).
const HOST_OK = new Set([..."!$&'()*+,;=:[]<>\"-_.~"]);
// Characters of userinfo besides letters and digits (net/url validUserinfo).
const USERINFO_OK = new Set([..."-._:~!$&'()*+,;=%@"]);

const hasCtlByte = (s: string) => [...Buffer.from(s, 'utf8')].some((b) => b < 0x20 || b === 0x7f);

/** scheme splits off a leading "scheme:"; undefined scheme when there is none, an error for ":x". */
function scheme(raw: string): { scheme: string; rest: string } | Error {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') return i === 0 ? new Error('missing protocol scheme') : { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

/** escapesValid checks %XX sequences and, for hosts, the characters allowed unescaped. */
function escapesValid(s: string, host: boolean): boolean {
  const bytes = Buffer.from(s, 'utf8');
  for (let i = 0; i < bytes.length; ) {
    const c = String.fromCharCode(bytes[i]!);
    if (c === '%') {
      if (i + 2 >= bytes.length || !HEX.test(String.fromCharCode(bytes[i + 1]!)) || !HEX.test(String.fromCharCode(bytes[i + 2]!))) return false;
      // In a host, %-encoding is only for non-ASCII bytes (and %25).
      if (host && parseInt(String.fromCharCode(bytes[i + 1]!), 16) < 8 && s.slice(i, i + 3) !== '%25') return false;
      i += 3;
      continue;
    }
    if (host && bytes[i]! < 0x80 && !ALNUM.test(c) && !HOST_OK.has(c)) return false;
    i++;
  }
  return true;
}

const validOptionalPort = (port: string) => port === '' || /^:[0-9]*$/.test(port);

function hostValid(host: string): boolean {
  const open = host.lastIndexOf('[');
  if (open >= 0) {
    // An IP-literal: only an IPv6 address (with an optional %25 zone) may be in brackets.
    const close = host.lastIndexOf(']');
    if (close < open || !validOptionalPort(host.slice(close + 1))) return false;
    const literal = host.slice(open + 1, close);
    const zone = literal.indexOf('%25');
    if (!escapesValid(zone < 0 ? literal : literal.slice(0, zone), true) || (zone >= 0 && !escapesValid(literal.slice(zone), false))) return false;
    let address: string;
    try {
      address = decodeURIComponent(literal);
    } catch {
      return false;
    }
    return isIPv6(address);
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && !validOptionalPort(host.slice(colon))) return false;
  return escapesValid(host, true);
}

function authorityValid(authority: string): boolean {
  const at = authority.lastIndexOf('@');
  if (!hostValid(at < 0 ? authority : authority.slice(at + 1))) return false;
  if (at < 0) return true;
  const userinfo = authority.slice(0, at);
  return [...userinfo].every((c) => ALNUM.test(c) || USERINFO_OK.has(c)) && userinfo.split(':').every((part) => escapesValid(part, false));
}

/** isRequestURI reports whether Go's url.ParseRequestURI accepts raw. */
export function isRequestURI(raw: string): boolean {
  if (hasCtlByte(raw) || raw === '') return false;
  if (raw === '*') return true;
  const split = scheme(raw);
  if (split instanceof Error) return false;
  let rest = split.rest;
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else if (rest.includes('?')) rest = rest.slice(0, rest.indexOf('?'));
  if (!rest.startsWith('/')) return split.scheme !== ''; // opaque ("mailto:x") with a scheme, else not a request URI
  if (split.scheme !== '' && rest.startsWith('//')) {
    const authority = rest.slice(2);
    const slash = authority.indexOf('/');
    if (!authorityValid(slash < 0 ? authority : authority.slice(0, slash))) return false;
    rest = slash < 0 ? '' : authority.slice(slash);
  }
  return escapesValid(rest, false);
}
