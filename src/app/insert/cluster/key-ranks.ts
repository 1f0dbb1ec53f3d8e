import type * as common from '../../../lib/protoparser/common/index.ts';
import type { Tenant } from '../../../lib/storageapi/index.ts';
import { type Placement, seriesHash } from './placement.ts';

/** UNRANKED marks a key not ranked yet (node indexes stay below 255: Placement's limit). */
const UNRANKED = 0xff;
/** MAX_TENANTS_PER_TABLE bounds the rankings kept per key table; past it they start over. */
const MAX_TENANTS_PER_TABLE = 64;

/**
 * KeyRanks remembers the node ranking of the series keys of keyed batches, per key table object
 * and tenant, so a row of a series seen before is placed without hashing its labels. It ranks
 * exactly as the row path does (seriesHash of the tenant and the table's canonical labels), so a
 * series lands on the same nodes whichever parser read it. Memory: node-count bytes per key per
 * tenant, held only while the table lives (parsers' dictionaries drop tables when they trim).
 */
export class KeyRanks {
  readonly #placement: Placement;
  readonly #byTable = new WeakMap<common.SeriesKeyTable, Map<string, Uint8Array>>();

  constructor(placement: Placement) {
    this.#placement = placement;
  }

  /** rank writes into out, for each row i of b, its ranking at out[i * n … i * n + n) (n = node count). */
  rank(tenant: Tenant, b: common.KeyedColumns, out: Uint8Array): void {
    const n = this.#placement.size;
    const table = b.table;
    let ranks = this.#ranksOf(tenant, table);
    const keys = b.keys;
    for (let i = 0; i < b.length; i++) {
      const k = keys[i]!;
      const at = k * n;
      if (at >= ranks.length) ranks = this.#grow(tenant, table, ranks);
      if (ranks[at] === UNRANKED) this.#placement.rank(seriesHash(tenant, table.labels[k]!), ranks.subarray(at, at + n));
      for (let j = 0; j < n; j++) out[i * n + j] = ranks[at + j]!;
    }
  }

  #ranksOf(tenant: Tenant, table: common.SeriesKeyTable): Uint8Array {
    let byTenant = this.#byTable.get(table);
    if (byTenant === undefined) this.#byTable.set(table, (byTenant = new Map()));
    const key = `${tenant.accountID}:${tenant.projectID}`;
    let ranks = byTenant.get(key);
    if (ranks === undefined) {
      if (byTenant.size >= MAX_TENANTS_PER_TABLE) byTenant.clear();
      ranks = new Uint8Array(Math.max(64, table.labels.length) * this.#placement.size).fill(UNRANKED);
      byTenant.set(key, ranks);
    }
    return ranks;
  }

  #grow(tenant: Tenant, table: common.SeriesKeyTable, ranks: Uint8Array): Uint8Array {
    const grown = new Uint8Array(Math.max(2 * ranks.length, table.labels.length * this.#placement.size)).fill(UNRANKED);
    grown.set(ranks);
    this.#byTable.get(table)!.set(`${tenant.accountID}:${tenant.projectID}`, grown);
    return grown;
  }
}
