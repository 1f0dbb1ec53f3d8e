import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import { cr, Env, NS, OPERATOR_NS, REAL_CRS, testNamespace } from './harness.ts';

// An operator started with -watchNamespaces manages only those namespaces; the fake API server
// checks it never even lists other namespaces (RBAC in namespaced mode would forbid it).
const ELSEWHERE = testNamespace('elsewhere');
let env: Env;

describe.each(REAL_CRS)('-watchNamespaces (custom resources: %s)', { timeout: 90_000 }, (mode) => {
  beforeAll(async () => {
    env = await new Env({ mode }).start([NS, OPERATOR_NS, ELSEWHERE]);
    env.operator(`-watchNamespaces=${NS}`);
  });
  afterAll(async () => env.stop());

  it('reconciles resources in watched namespaces and leaves the others alone', async () => {
    await env.apply(cr('TSDBSingle', 'mine', {}));
    await env.apply({ ...cr('TSDBSingle', 'theirs', {}), metadata: { name: 'theirs', namespace: ELSEWHERE } });
    await env.waitFor('watched resource Ready', () => env.ready('TSDBSingle', 'mine'));
    await new Promise((r) => setTimeout(r, 500));
    expect(env.store.get(BUILTIN.statefulSet, { namespace: ELSEWHERE, name: 'tsdb-single-theirs' })).toBeUndefined();
    expect(await env.status('TSDBSingle', 'theirs', ELSEWHERE)).toEqual({});
    const reads = [...env.server.scopes];
    expect(reads).toContain(`watch tsdbsingles ${NS}`);
    // Namespaced kinds are read only in the watched namespace (the Lease lives in strata-system).
    expect(reads.filter((r) => !r.endsWith(` ${NS}`) && !r.endsWith(' -') && !r.includes('leases strata-system'))).toEqual([]);
  });
});
