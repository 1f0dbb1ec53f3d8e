import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import { cr, Env, NS } from './harness.ts';

// An operator started with -watchNamespaces manages only those namespaces; the fake API server
// checks it never even lists other namespaces (RBAC in namespaced mode would forbid it).
let env: Env;
beforeAll(async () => {
  env = await new Env().start([NS, 'strata-system', 'elsewhere']);
  env.operator(`-watchNamespaces=${NS}`);
});
afterAll(async () => env.stop());

describe('-watchNamespaces', { timeout: 90_000 }, () => {
  it('reconciles resources in watched namespaces and leaves the others alone', async () => {
    env.apply(cr('TSDBSingle', 'mine', {}));
    env.apply({ ...cr('TSDBSingle', 'theirs', {}), metadata: { name: 'theirs', namespace: 'elsewhere' } });
    await env.waitFor('watched resource Ready', () => env.ready('TSDBSingle', 'mine'));
    await new Promise((r) => setTimeout(r, 500));
    expect(env.store.get(BUILTIN.statefulSet, { namespace: 'elsewhere', name: 'tsdb-single-theirs' })).toBeUndefined();
    expect(env.status('TSDBSingle', 'theirs', 'elsewhere')).toEqual({});
    const reads = [...env.server.scopes];
    expect(reads).toContain(`watch tsdbsingles ${NS}`);
    // Namespaced kinds are read only in the watched namespace (the Lease lives in strata-system).
    expect(reads.filter((r) => !r.endsWith(` ${NS}`) && !r.endsWith(' -') && !r.includes('leases strata-system'))).toEqual([]);
  });
});
