import { load } from 'js-yaml';
import {
  forcedArgsFromSearch, type HeaderPair, IpFilter, IpFilterError,
} from '../../lib/httpproxy/index.ts';
import { compileAnchored } from '../../lib/regexp/index.ts';
import { ConfigError } from './config-error.ts';
import type { AuthConfig, TargetUrl, UrlMapEntry, UserConfig } from './config-types.ts';
import { bearerLabel, userAuthKeys } from './credentials.ts';
import { substituteEnv } from './env-template.ts';

/** ParseOptions are the inputs of parseAuthConfig besides the text. */
export interface ParseOptions {
  /** env resolves `%{NAME}` placeholders. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** ipFiltersAllowed: `ip_filters` is an enterprise feature, allowed only with -eula. */
  readonly ipFiltersAllowed: boolean;
}

type Obj = Record<string, unknown>;

const TOP_KEYS = ['users', 'unauthorized_user', 'ip_filters'];
const USER_KEYS = ['username', 'password', 'bearer_token', 'name', 'url_prefix', 'headers', 'max_concurrent_requests', 'url_map', 'default_url', 'ip_filters'];
const UNAUTHORIZED_KEYS = ['url_prefix', 'headers', 'max_concurrent_requests', 'url_map', 'default_url', 'ip_filters'];
const URL_MAP_KEYS = ['src_paths', 'url_prefix', 'headers'];
const IP_FILTER_KEYS = ['allow_list', 'deny_list'];

/**
 * parseAuthConfig parses -auth.config text (YAML after `%{ENV}` substitution) strictly: unknown
 * keys, wrong types, bad URLs or regexps, duplicate credentials and ip_filters without -eula are
 * ConfigErrors naming the key and the user. Pure.
 */
export function parseAuthConfig(text: string, o: ParseOptions): AuthConfig {
  const substituted = substituteEnv(text, o.env);
  let doc: unknown;
  try {
    doc = substituted.trim() === '' ? {} : load(substituted);
  } catch (err) {
    throw new ConfigError(`cannot parse auth config YAML: ${(err as Error).message}`, { cause: err });
  }
  if (doc === null || doc === undefined) doc = {};
  const top = asObject(doc, 'auth config');
  checkKeys(top, TOP_KEYS, 'at the top level of the auth config');
  const usersRaw = top.users ?? [];
  if (!Array.isArray(usersRaw)) throw new ConfigError('"users" must be a list of user entries');
  const users = usersRaw.map((u, i) => parseUser(u, i, o));
  const unauthorizedUser = top.unauthorized_user === undefined || top.unauthorized_user === null
    ? undefined : parseUnauthorized(top.unauthorized_user, o);
  if (users.length === 0 && unauthorizedUser === undefined) {
    throw new ConfigError('auth config defines no "users" and no "unauthorized_user": every request would be rejected');
  }
  checkDuplicateCredentials(users);
  const ipFilter = top.ip_filters === undefined ? undefined : parseIpFilters(top.ip_filters, 'the global "ip_filters"', o);
  return { users, unauthorizedUser, ipFilter };
}

function parseUser(raw: unknown, index: number, o: ParseOptions): UserConfig {
  const u = asObject(raw, `users[${index}]`);
  const username = optString(u, 'username', `users[${index}]`);
  const name = optString(u, 'name', `users[${index}]`);
  const describe = `user ${JSON.stringify(name ?? username ?? `users[${index}]`)}`;
  checkKeys(u, USER_KEYS, `in ${describe}`);
  const password = optString(u, 'password', describe);
  const bearerToken = optString(u, 'bearer_token', describe);
  if (username === undefined && bearerToken === undefined) throw new ConfigError(`${describe} needs "username" or "bearer_token"`);
  if (username !== undefined && bearerToken !== undefined) throw new ConfigError(`${describe} sets both "username" and "bearer_token"; use one`);
  if (password !== undefined && username === undefined) throw new ConfigError(`${describe} sets "password" without "username"`);
  if (bearerToken === '') throw new ConfigError(`${describe} has an empty "bearer_token"`);
  if (username === '') throw new ConfigError(`${describe} has an empty "username"`);
  const label = name ?? username ?? bearerLabel(bearerToken!);
  return {
    ...parseRouting(u, describe, o),
    label, describe,
    authKeys: userAuthKeys({ ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }), ...(bearerToken === undefined ? {} : { bearerToken }) }),
  };
}

function parseUnauthorized(raw: unknown, o: ParseOptions): UserConfig {
  const describe = '"unauthorized_user"';
  const u = asObject(raw, describe);
  checkKeys(u, UNAUTHORIZED_KEYS, `in ${describe}`);
  return { ...parseRouting(u, describe, o), label: '', describe, authKeys: [] };
}

function parseRouting(u: Obj, describe: string, o: ParseOptions) {
  const urlPrefix = u.url_prefix === undefined ? undefined : parseUrlList(u.url_prefix, `"url_prefix" of ${describe}`);
  const urlMap = u.url_map === undefined ? [] : parseUrlMap(u.url_map, describe);
  const defaultUrl = u.default_url === undefined ? undefined : parseUrlList(u.default_url, `"default_url" of ${describe}`);
  if (urlPrefix === undefined && urlMap.length === 0) throw new ConfigError(`${describe} needs "url_prefix" or "url_map"`);
  const max = u.max_concurrent_requests;
  if (max !== undefined && !(Number.isInteger(max) && (max as number) > 0)) {
    throw new ConfigError(`"max_concurrent_requests" of ${describe} must be a positive integer, not ${JSON.stringify(max)}`);
  }
  return {
    urlPrefix, urlMap, defaultUrl,
    headers: u.headers === undefined ? [] : parseHeaders(u.headers, `"headers" of ${describe}`),
    maxConcurrentRequests: max as number | undefined,
    ipFilter: u.ip_filters === undefined ? undefined : parseIpFilters(u.ip_filters, `"ip_filters" of ${describe}`, o),
  };
}

function parseUrlMap(raw: unknown, describe: string): UrlMapEntry[] {
  if (!Array.isArray(raw)) throw new ConfigError(`"url_map" of ${describe} must be a list`);
  return raw.map((e, i) => {
    const where = `url_map[${i}] of ${describe}`;
    const m = asObject(e, where);
    checkKeys(m, URL_MAP_KEYS, `in ${where}`);
    if (!Array.isArray(m.src_paths) || m.src_paths.length === 0) throw new ConfigError(`"src_paths" of ${where} must be a non-empty list of regexps`);
    const srcPaths = m.src_paths.map((p, j) => {
      if (typeof p !== 'string') throw new ConfigError(`src_paths[${j}] of ${where} must be a string`);
      try {
        return compileAnchored(p);
      } catch (err) {
        throw new ConfigError(`cannot compile src_paths[${j}] ${JSON.stringify(p)} of ${where}: ${(err as Error).message}`, { cause: err });
      }
    });
    if (m.url_prefix === undefined) throw new ConfigError(`${where} needs "url_prefix"`);
    return {
      srcPaths,
      urlPrefix: parseUrlList(m.url_prefix, `"url_prefix" of ${where}`),
      headers: m.headers === undefined ? [] : parseHeaders(m.headers, `"headers" of ${where}`),
    };
  });
}

function parseUrlList(raw: unknown, where: string): TargetUrl[] {
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || list.length === 0) throw new ConfigError(`${where} must be a URL or a non-empty list of URLs`);
  return list.map((s, i) => {
    if (typeof s !== 'string') throw new ConfigError(`${where}: entry ${i} must be a string`);
    return parseTargetUrl(s, where);
  });
}

function parseTargetUrl(s: string, where: string): TargetUrl {
  let u: URL;
  try {
    u = new URL(s);
  } catch (err) {
    throw new ConfigError(`${where}: ${JSON.stringify(s)} is not a valid URL`, { cause: err });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${where}: ${JSON.stringify(s)} must use http or https`);
  if (u.username !== '' || u.password !== '') throw new ConfigError(`${where}: a URL must not carry credentials; send them with "headers" instead`);
  if (u.hash !== '') throw new ConfigError(`${where}: ${JSON.stringify(s)} must not have a #fragment`);
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, ''), forced: forcedArgsFromSearch(u.searchParams), text: s };
}

function parseHeaders(raw: unknown, where: string): HeaderPair[] {
  if (!Array.isArray(raw)) throw new ConfigError(`${where} must be a list of "Name: value" strings`);
  return raw.map((h) => {
    const colon = typeof h === 'string' ? h.indexOf(':') : -1;
    const name = colon > 0 ? (h as string).slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) throw new ConfigError(`${where}: ${JSON.stringify(h)} is not a "Name: value" header`);
    const value = (h as string).slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new ConfigError(`${where}: the value of header ${JSON.stringify(name)} has a control character`);
    return { name, value };
  });
}

function parseIpFilters(raw: unknown, where: string, o: ParseOptions): IpFilter {
  if (!o.ipFiltersAllowed) throw new ConfigError(`${where}: ip_filters is an enterprise feature; start authproxy with -eula to use it`);
  const f = asObject(raw, where);
  checkKeys(f, IP_FILTER_KEYS, `in ${where}`);
  const list = (k: string): string[] => {
    const v = f[k] ?? [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ConfigError(`"${k}" in ${where} must be a list of IP addresses or CIDR networks`);
    return v as string[];
  };
  try {
    return new IpFilter(list('allow_list'), list('deny_list'));
  } catch (err) {
    if (err instanceof IpFilterError) throw new ConfigError(`${where}: ${err.message}`, { cause: err });
    throw err;
  }
}

function checkDuplicateCredentials(users: readonly UserConfig[]): void {
  const owner = new Map<string, UserConfig>();
  for (const u of users) {
    for (const k of u.authKeys) {
      const prev = owner.get(k);
      if (prev !== undefined) throw new ConfigError(`${u.describe} has the same credentials as ${prev.describe}; credentials must be unique`);
      owner.set(k, u);
    }
  }
}

function asObject(v: unknown, where: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`${where} must be a mapping`);
  return v as Obj;
}

function checkKeys(o: Obj, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw new ConfigError(`unknown key ${JSON.stringify(k)} ${where}`);
}

function optString(o: Obj, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ConfigError(`"${key}" of ${where} must be a string (quote it in YAML), not ${typeof v}`);
  return v;
}
