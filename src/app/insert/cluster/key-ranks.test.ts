import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { common } from '../../../lib/protoparser/index.ts';
import { KeyRanks } from './key-ranks.ts';
import { Placement, seriesHash } from './placement.ts';

describe('KeyRanks', () => {
  it('ranks every row as placement does for its tenant and labels, whatever the tables, tenants and key order', () => {
    const placement = new Placement(['a:1', 'b:1', 'c:1', 'd:1']);
    const n = placement.size;
    const ranks = new KeyRanks(placement);
    const tables = [new common.SeriesKeyTable(), new common.SeriesKeyTable()];
    const call = fc.record({ table: fc.integer({ min: 0, max: 1 }), account: fc.integer({ min: 0, max: 3 }), keys: fc.array(fc.nat(300), { maxLength: 40 }) });
    fc.assert(fc.property(fc.array(call, { maxLength: 8 }), (calls) => {
      for (const c of calls) {
        const t = tables[c.table]!;
        // Tables grow as parsers' do (past the cache's first size too).
        for (const k of c.keys) {
          while (t.labels.length <= k) {
            t.labels.push([{ name: '__name__', value: `m${c.table}` }, { name: 'i', value: String(t.labels.length) }]);
            t.rawKeys.push('');
          }
        }
        const b = common.KeyedColumns.of(t, Int32Array.from(c.keys), new Float64Array(c.keys.length), new Float64Array(c.keys.length), c.keys.length);
        const tenant = { accountID: c.account, projectID: 0 };
        const out = new Uint8Array(c.keys.length * n);
        ranks.rank(tenant, b, out);
        c.keys.forEach((k, i) => {
          const want = new Uint8Array(n);
          placement.rank(seriesHash(tenant, t.labels[k]!), want);
          expect([...out.subarray(i * n, i * n + n)]).toEqual([...want]);
        });
      }
    }));
  });
});
