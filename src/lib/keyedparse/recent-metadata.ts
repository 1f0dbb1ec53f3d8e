import * as common from '../protoparser/common/index.ts';
import type { Tenant } from '../storageapi/index.ts';

/**
 * METADATA_REPEAT_MS: a metadata line seen again unchanged within this window is not decoded again
 * (common.RecentLines). Senders repeat their HELP and TYPE lines every scrape; a changed line is
 * taken at once, so the window only bounds how often the store hears that a family is still alive.
 */
export const METADATA_REPEAT_MS = 5 * 60_000;

/** RecentMetadata keeps one common.RecentLines per tenant (bounded: past maxTenants it starts over). */
export class RecentMetadata {
  readonly #byTenant = new Map<string, common.RecentLines>();
  readonly #maxTenants: number;

  constructor(maxTenants = 1024) {
    this.#maxTenants = maxTenants;
  }

  /** for returns the tenant's RecentLines. */
  for(tenant: Tenant | string): common.RecentLines {
    const key = typeof tenant === 'string' ? tenant : `${tenant.accountID}:${tenant.projectID}`;
    let r = this.#byTenant.get(key);
    if (r === undefined) {
      if (this.#byTenant.size >= this.#maxTenants) this.#byTenant.clear();
      r = new common.RecentLines(METADATA_REPEAT_MS);
      this.#byTenant.set(key, r);
    }
    return r;
  }
}
