import { describe, expect, it } from 'vitest';
import { OWNED, REFERENCED } from './controller/manager.ts';
import { BUILTIN, CUSTOM } from './k8s/resources.ts';
import { PRUNABLE } from './reconcile/prune.ts';
import { grants, PERMISSIONS } from './rbac.ts';

const g = new Set(grants(PERMISSIONS));
const has = (verb: string, group: string, resource: string) => g.has(`${verb} ${group}/${resource}`);

describe('PERMISSIONS', () => {
  it('let every informer list and watch its type', () => {
    for (const t of [...Object.values(CUSTOM), ...OWNED, ...REFERENCED, BUILTIN.namespace]) {
      expect(has('list', t.group, t.plural) && has('watch', t.group, t.plural), t.plural).toBe(true);
    }
  });

  it('let the operator apply and prune every kind the builders produce, and nothing else', () => {
    for (const t of PRUNABLE) for (const v of ['create', 'patch', 'delete']) expect(has(v, t.group, t.plural), `${v} ${t.plural}`).toBe(true);
    const writable = [...g].filter((x) => /^(create|patch|delete|update) /.test(x)).map((x) => x.split(' ')[1]);
    const allowedWrites = new Set([...PRUNABLE.map((t) => `${t.group}/${t.plural}`), ...Object.values(CUSTOM).map((t) => `${t.group}/${t.plural}/status`), '/pods/eviction', '/events', 'coordination.k8s.io/leases']);
    expect(writable.filter((w) => !allowedWrites.has(w!))).toEqual([]);
  });

  it('grant no wildcard and no cluster-admin style verbs', () => {
    expect([...g].filter((x) => x.includes('*') || /^(deletecollection|escalate|bind|impersonate) /.test(x))).toEqual([]);
  });
});
