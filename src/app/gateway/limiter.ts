// The rate limit decision (SPEC A2; DECISIONS.md "Which limits gate which requests", "Global vs
// tenant entry"): reads are gated by `queries` limits only; writes by `rows_inserted`,
// `new_series` and `active_series`. A global entry applies to every tenant's own usage unless the
// tenant has an entry of the same type and window. Pure: config and usage in, a verdict out.
import type { Tenant } from './claims.ts';
import type { RequestKind } from './path-policy.ts';
import type { LimitEntry, LimitType, RateLimitConfig, Resolution } from './ratelimit-config.ts';
import { tenantKey, type UsageKey, usageKey } from './usage-queries.ts';

/** Exceeded names the limit a request hit. */
export interface Exceeded {
  readonly type: LimitType;
  readonly resolution: Resolution;
  readonly limit: number;
  readonly usage: number;
}

/** Usage is the last measured usage: tenant key → usage key → value. */
export type Usage = ReadonlyMap<string, ReadonlyMap<UsageKey, number>>;

const GATES: Readonly<Record<RequestKind, ReadonlySet<LimitType>>> = {
  read: new Set(['queries']),
  write: new Set(['rows_inserted', 'new_series', 'active_series']),
};

interface Verdict {
  readonly read: Exceeded | undefined;
  readonly write: Exceeded | undefined;
}

/**
 * RateLimiter answers "may this tenant read / write now?" from one config and the latest usage.
 * Verdicts are computed once per tenant per usage or config update, so the per-request cost is a
 * map lookup.
 */
export class RateLimiter {
  #global = new Map<string, LimitEntry>();
  #byTenant = new Map<string, Map<string, LimitEntry>>();
  #usage: Usage = new Map();
  #verdicts = new Map<string, Verdict>();
  #enabled = false;

  /** setConfig replaces the limits. */
  setConfig(cfg: RateLimitConfig): void {
    const global = new Map<string, LimitEntry>();
    const byTenant = new Map<string, Map<string, LimitEntry>>();
    for (const l of cfg.limits) {
      const k = `${l.type}/${l.resolution}`;
      if (l.tenant === undefined) global.set(k, l);
      else {
        const t = tenantKey(l.tenant);
        let m = byTenant.get(t);
        if (m === undefined) byTenant.set(t, (m = new Map()));
        m.set(k, l);
      }
    }
    this.#global = global;
    this.#byTenant = byTenant;
    this.#enabled = cfg.limits.length > 0;
    this.#verdicts = new Map();
  }

  /** setUsage replaces the measured usage. */
  setUsage(u: Usage): void {
    this.#usage = u;
    this.#verdicts = new Map();
  }

  /** check returns the limit a request of `kind` by tenant t would exceed, or undefined. */
  check(t: Tenant, kind: RequestKind): Exceeded | undefined {
    if (!this.#enabled) return undefined;
    const key = tenantKey(t);
    let v = this.#verdicts.get(key);
    if (v === undefined) {
      v = { read: this.#evaluate(key, 'read'), write: this.#evaluate(key, 'write') };
      this.#verdicts.set(key, v);
    }
    return v[kind];
  }

  /** limitsOf lists the limits in effect for a tenant (tenant entries over global ones). */
  limitsOf(key: string): LimitEntry[] {
    const own = this.#byTenant.get(key);
    const merged = new Map(this.#global);
    if (own !== undefined) for (const [k, l] of own) merged.set(k, l);
    return [...merged.values()];
  }

  #evaluate(key: string, kind: RequestKind): Exceeded | undefined {
    const usage = this.#usage.get(key);
    for (const l of this.limitsOf(key)) {
      if (!GATES[kind].has(l.type)) continue;
      const used = usage?.get(usageKey(l.type, l.resolution)) ?? 0;
      if (used >= l.value) return { type: l.type, resolution: l.resolution, limit: l.value, usage: used };
    }
    return undefined;
  }
}
