import type { Labels, Tenant } from '../../../lib/storageapi/index.ts';

// Which storage nodes hold a series: rendezvous (highest-random-weight) hashing of the series over
// the node addresses. Every series ranks all nodes by a score of (series hash, node); its copies go
// to the first replicationFactor nodes of that ranking that are in rotation, and a node that is out
// of rotation hands each of its series to that series' next node, so its load spreads evenly over
// the others. Adding a node moves only the series that now rank it first; the order of the
// -storageNode list does not matter. Changing these functions moves every series to other nodes:
// they are part of the cluster's data layout.

/** fmix32 is MurmurHash3's 32-bit finaliser: a bijection whose output bits each depend on every input bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function fnvString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  // A separator code unit no label text ends with ends every string, so ("ab","c") != ("a","bc").
  return Math.imul(h ^ 0xffff, FNV_PRIME);
}

/**
 * seriesHash hashes a tenant and a sorted label set (FNV-1a over the UTF-16 code units of each
 * name and value, then fmix32): the same series always gets the same number, in every process.
 */
export function seriesHash(tenant: Tenant, labels: Labels): number {
  let h = Math.imul(FNV_OFFSET ^ tenant.accountID, FNV_PRIME);
  h = Math.imul(h ^ tenant.projectID, FNV_PRIME);
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    h = fnvString(h, l.name);
    h = fnvString(h, l.value);
  }
  return fmix32(h);
}

/** Placement ranks storage nodes for series hashes. Nodes are named by their addresses. */
export class Placement {
  readonly #seeds: Uint32Array;
  readonly #scores: Uint32Array;

  constructor(nodes: readonly string[]) {
    if (nodes.length === 0) throw new Error('cannot place series without storage nodes');
    if (nodes.length > 255) throw new Error(`cannot place series over ${nodes.length} storage nodes; at most 255 are supported`);
    this.#seeds = Uint32Array.from(nodes, (n) => fnvString(FNV_OFFSET, n) >>> 0);
    this.#scores = new Uint32Array(nodes.length);
  }

  get size(): number {
    return this.#seeds.length;
  }

  /**
   * rank writes into out (length = node count) the node indexes in preference order for a
   * series hash: highest score first, ties (practically never) by index.
   */
  rank(hash: number, out: Uint8Array): void {
    const n = this.#seeds.length;
    const scores = this.#scores;
    for (let i = 0; i < n; i++) {
      scores[i] = fmix32((hash ^ this.#seeds[i]!) + 0x9e3779b9);
      // insertion sort: n is small (a handful of nodes)
      let j = i;
      while (j > 0 && scores[out[j - 1]!]! < scores[i]!) {
        out[j] = out[j - 1]!;
        j--;
      }
      out[j] = i;
    }
  }
}
