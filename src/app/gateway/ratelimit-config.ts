// The rate limit config (SPEC A2; -ratelimit.config, a YAML file or URL): a pure parser, tested
// from YAML strings. Strict like the auth proxy's: unknown keys and wrong types are errors naming
// the entry, so a typo never silently removes a limit.
import { load } from 'js-yaml';
import type { Tenant } from './claims.ts';

/** LIMIT_TYPES are the limited quantities. */
export const LIMIT_TYPES = ['queries', 'active_series', 'new_series', 'rows_inserted'] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];

/** RESOLUTIONS are the windows; an entry without one is per minute (DECISIONS, "Rate limit resolution"). */
export const RESOLUTIONS = ['minute', 'hour'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** LimitEntry is one entry of `limits`. */
export interface LimitEntry {
  readonly type: LimitType;
  readonly value: number;
  readonly resolution: Resolution;
  /** tenant is undefined for a global limit (no account_id and project_id). */
  readonly tenant: Tenant | undefined;
}

/** RateLimitConfig is a parsed -ratelimit.config. */
export interface RateLimitConfig {
  readonly limits: readonly LimitEntry[];
}

/** RateLimitConfigError: the config text is invalid; the message names the entry and key. */
export class RateLimitConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RateLimitConfigError';
  }
}

const ENTRY_KEYS = new Set(['type', 'value', 'resolution', 'account_id', 'project_id']);
const MAX_UINT32 = 0xffff_ffff;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** parseRateLimitConfig parses the YAML text of -ratelimit.config; throws RateLimitConfigError. Pure. */
export function parseRateLimitConfig(text: string): RateLimitConfig {
  let doc: unknown;
  try {
    doc = text.trim() === '' ? {} : load(text);
  } catch (err) {
    throw new RateLimitConfigError(`cannot parse rate limit config YAML: ${(err as Error).message}`, { cause: err });
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isObject(doc)) throw new RateLimitConfigError('the rate limit config must be a mapping with a "limits" list');
  for (const k of Object.keys(doc)) if (k !== 'limits') throw new RateLimitConfigError(`unknown key ${JSON.stringify(k)} at the top level of the rate limit config; only "limits" is allowed`);
  const raw = doc.limits ?? [];
  if (!Array.isArray(raw)) throw new RateLimitConfigError('"limits" must be a list of limit entries');
  const limits = raw.map((e, i) => parseEntry(e, i));
  const seen = new Set<string>();
  limits.forEach((l, i) => {
    const key = `${l.type}/${l.resolution}/${l.tenant === undefined ? 'global' : `${l.tenant.accountID}:${l.tenant.projectID}`}`;
    if (seen.has(key)) throw new RateLimitConfigError(`limits[${i}] repeats an earlier ${l.resolution} "${l.type}" limit for ${l.tenant === undefined ? 'all tenants' : `tenant ${l.tenant.accountID}:${l.tenant.projectID}`}`);
    seen.add(key);
  });
  return { limits };
}

function parseEntry(raw: unknown, i: number): LimitEntry {
  const where = `limits[${i}]`;
  if (!isObject(raw)) throw new RateLimitConfigError(`${where} must be a mapping with type and value`);
  for (const k of Object.keys(raw)) if (!ENTRY_KEYS.has(k)) throw new RateLimitConfigError(`unknown key ${JSON.stringify(k)} in ${where}; allowed: ${[...ENTRY_KEYS].join(', ')}`);
  const type = raw.type;
  if (!(LIMIT_TYPES as readonly unknown[]).includes(type)) throw new RateLimitConfigError(`${where}: "type" must be one of ${LIMIT_TYPES.join(', ')}, not ${JSON.stringify(type)}`);
  const value = raw.value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new RateLimitConfigError(`${where}: "value" must be a non-negative integer, not ${JSON.stringify(value)}`);
  const resolution = raw.resolution ?? 'minute';
  if (!(RESOLUTIONS as readonly unknown[]).includes(resolution)) throw new RateLimitConfigError(`${where}: "resolution" must be minute or hour, not ${JSON.stringify(resolution)}`);
  const acc = raw.account_id;
  const proj = raw.project_id;
  if (acc === undefined && proj !== undefined) throw new RateLimitConfigError(`${where}: "project_id" needs "account_id"`);
  const tenant = acc === undefined ? undefined : { accountID: tenantId(acc, where, 'account_id'), projectID: proj === undefined ? 0 : tenantId(proj, where, 'project_id') };
  return { type: type as LimitType, value, resolution: resolution as Resolution, tenant };
}

function tenantId(v: unknown, where: string, key: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_UINT32) throw new RateLimitConfigError(`${where}: "${key}" must be an integer from 0 to ${MAX_UINT32}, not ${JSON.stringify(v)}`);
  return v;
}
