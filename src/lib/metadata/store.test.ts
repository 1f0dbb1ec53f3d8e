import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../storageapi/index.ts';
import { MetadataStore } from './store.ts';

const T = DEFAULT_TENANT;
const all = { metric: '', limit: 0, limitPerMetric: 0 };

describe('MetadataStore', () => {
  it('merges the fields each update gives into one entry per family', () => {
    const s = new MetadataStore(1 << 20);
    s.add(T, { metric: 'up', help: 'Up or down.' });
    s.add(T, { metric: 'up', type: 'gauge' });
    s.add(T, { metric: 'http_requests_total', type: 'counter', help: 'Requests.', unit: '' });
    s.add(T, { metric: 'only_help', help: 'H.' });
    expect(s.query(T, all)).toEqual({
      http_requests_total: [{ type: 'counter', help: 'Requests.', unit: '' }],
      only_help: [{ type: 'unknown', help: 'H.', unit: '' }],
      up: [{ type: 'gauge', help: 'Up or down.', unit: '' }],
    });
    // A changed field replaces the held one; the others stay.
    s.add(T, { metric: 'up', help: 'Changed.' });
    expect(s.query(T, { ...all, metric: 'up' })).toEqual({ up: [{ type: 'gauge', help: 'Changed.', unit: '' }] });
  });

  it('answers metric, limit and limit_per_metric, names in order', () => {
    const s = new MetadataStore(1 << 20);
    for (const m of ['c', 'a', 'b']) s.add(T, { metric: m, type: 'gauge' });
    const f = (q: Partial<typeof all>, want: string[]) => expect(Object.keys(s.query(T, { ...all, ...q }))).toEqual(want);
    f({}, ['a', 'b', 'c']);
    f({ limit: 2 }, ['a', 'b']);
    f({ metric: 'b' }, ['b']);
    f({ metric: 'zzz' }, []);
    expect(s.query(T, { ...all, limitPerMetric: 1 }).a).toHaveLength(1);
  });

  it('keeps tenants apart', () => {
    const s = new MetadataStore(1 << 20);
    s.add({ accountID: 1, projectID: 0 }, { metric: 'm', help: 'one' });
    s.add({ accountID: 2, projectID: 0 }, { metric: 'm', help: 'two' });
    expect(s.query({ accountID: 1, projectID: 0 }, all)).toEqual({ m: [{ type: 'unknown', help: 'one', unit: '' }] });
    expect(s.query(T, all)).toEqual({});
  });

  it('stays within its budget by evicting the least recently written entries, counting them', () => {
    const one = new MetadataStore(1 << 20);
    one.add(T, { metric: 'm0', help: 'x' });
    const entryBytes = one.bytes;
    const s = new MetadataStore(entryBytes * 3);
    for (const m of ['m0', 'm1', 'm2']) s.add(T, { metric: m, help: 'x' });
    s.add(T, { metric: 'm0', help: 'x' }); // written again: now the most recent
    s.add(T, { metric: 'm3', help: 'x' });
    expect(Object.keys(s.query(T, all))).toEqual(['m0', 'm2', 'm3']);
    expect(s.dropped).toBe(1);
    // An entry larger than the whole budget is refused (and counted); the held one stays.
    s.add(T, { metric: 'm2', help: 'y'.repeat(entryBytes * 3) });
    expect(s.query(T, { ...all, metric: 'm2' }).m2).toEqual([{ type: 'unknown', help: 'x', unit: '' }]);
    expect(s.dropped).toBe(2);
    expect(s.bytes).toBeLessThanOrEqual(s.maxBytes);
  });

  it('changes its version only when the content changes', () => {
    const s = new MetadataStore(1 << 20);
    s.add(T, { metric: 'm', type: 'gauge' });
    const v = s.version;
    s.add(T, { metric: 'm', type: 'gauge' });
    s.add(T, { metric: 'm' });
    expect(s.version).toBe(v);
    s.add(T, { metric: 'm', type: 'counter' });
    expect(s.version).toBe(v + 1);
  });

  it('never exceeds its budget whatever is added', () => {
    const update = fc.record({ metric: fc.constantFrom('a', 'b', 'c', 'd', 'e'), help: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }), type: fc.option(fc.constantFrom('gauge' as const, 'counter' as const), { nil: undefined }) });
    fc.assert(fc.property(fc.integer({ min: 0, max: 3000 }), fc.array(update, { maxLength: 40 }), (budget, us) => {
      const s = new MetadataStore(budget);
      for (const u of us) s.add(T, u);
      expect(s.bytes).toBeLessThanOrEqual(budget);
      expect(s.entries().length).toBe(s.size);
    }), { numRuns: 500 });
  });
});
