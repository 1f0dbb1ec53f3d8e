import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { cr, Env, NS, OPERATOR_NS, podImage, REAL_CRS } from './harness.ts';
import type { OperatorProcess } from './harness.ts';

// With the custom resources on the real server the faults are still the fake's: it fails
// forwarded requests too (409s) and ends forwarded watches, but it cannot compact the real
// server's history, so there the 410 Gone comes from the kinds the fake serves (Pods,
// StatefulSets, …) while the custom resources' watches resume from where they were. The last
// scenario runs against the fake alone, where their watches expire too.
let env: Env;
let op: OperatorProcess;

const clusterSpec = (tag?: string) => ({ ...(tag === undefined ? {} : { image: { tag } }), storage: { replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } }, select: { replicas: 1 }, insert: { replicas: 1 } });
const workloads = () => [...env.store.list(BUILTIN.statefulSet, { namespace: NS }).items, ...env.store.list(BUILTIN.deployment, { namespace: NS }).items];
const snapshot = () => Object.fromEntries(workloads().map((w) => [`${w.kind}/${w.metadata.name}`, { generation: w.metadata.generation, template: JSON.stringify((w['spec'] as { template: unknown }).template) }]));
const leaseHolder = () => ((env.store.get(BUILTIN.lease, { namespace: OPERATOR_NS, name: 'strata-operator' })?.['spec'] as { holderIdentity?: string } | undefined)?.holderIdentity ?? '');

describe.each(REAL_CRS)('operator resilience (custom resources: %s)', { timeout: 90_000 }, (mode) => {
  beforeAll(async () => {
    env = await new Env({ mode }).start();
    op = env.operator();
  });
  afterAll(async () => env.stop());

  it('retries through 409 conflicts on applies and status writes', async () => {
    env.server.failNext({ method: 'PATCH', status: 409, reason: 'Conflict', count: 6 });
    await env.apply(cr('TSDBCluster', 'r', clusterSpec()));
    await env.waitFor('Ready despite conflicts', () => env.ready('TSDBCluster', 'r'));
    expect(env.server.faults.every((f) => f.count === 0)).toBe(true);
  });

  it('resumes dropped watches and relists after 410 Gone without missing changes', async () => {
    env.server.dropWatches();
    await env.apply(cr('TSDBSingle', 'after-drop', {}));
    await env.waitFor('change seen after a dropped watch', () => env.ready('TSDBSingle', 'after-drop'));
    // Forget the history, then cut the watches: resuming from the old version answers 410.
    env.store.compact();
    env.server.dropWatches();
    await env.apply(cr('TSDBSingle', 'after-410', {}));
    await env.waitFor('change seen after 410', () => env.ready('TSDBSingle', 'after-410'));
    expect(op.log()).toContain('watch expired; listing again');
  });

  it('does not touch any Pod template when the operator restarts with unchanged resources', async () => {
    const before = snapshot();
    expect(Object.keys(before).length).toBeGreaterThanOrEqual(4);
    await op.stop();
    op = env.operator();
    // The new instance takes the released lease and reconciles everything (resync is 5s; the initial list already queues all).
    await env.waitFor('new leader', () => op.log().includes('caches synced'));
    await new Promise((r) => setTimeout(r, 1500));
    expect(snapshot()).toEqual(before);
  });

  it('finishes a rollout started by an operator that was killed half-way, replacing each Pod once', async () => {
    const replaced: string[] = [];
    let killed: Promise<void> | undefined;
    const unsubscribe = env.store.onChange(({ event }) => {
      const o = event.object;
      if (o.kind !== 'Pod' || event.type !== 'DELETED' || !o.metadata.name!.startsWith('tsdb-storage-r-')) return;
      replaced.push(o.metadata.name!);
      if (killed === undefined) killed = op.kill();
    });
    await env.apply(cr('TSDBCluster', 'r', clusterSpec('3.0.0')));
    await env.waitFor('first Pod replaced', () => killed !== undefined);
    await killed;
    op = env.operator();
    const get = (kind: 'statefulSet' | 'deployment', name: string): KubeObject | undefined => env.store.get(BUILTIN[kind], { namespace: NS, name });
    await env.waitFor('rollout finished by the new operator', async () => podImage(get('deployment', 'tsdb-insert-r')) === 'strata/tsdb:3.0.0' && (await env.ready('TSDBCluster', 'r')), 30_000);
    unsubscribe();
    expect(replaced).toEqual(['tsdb-storage-r-2', 'tsdb-storage-r-1', 'tsdb-storage-r-0']);
  });

  it('runs one leader among two operators and fails over when the leader dies', async () => {
    const second = env.operator();
    await env.waitFor('second operator up', () => second.log().includes('serving /health'));
    await new Promise((r) => setTimeout(r, 600));
    expect(second.log()).not.toContain('became the leader');
    const holder = leaseHolder();
    expect(op.log()).toContain(holder);
    await op.kill();
    // The lease is not released by a killed process: the standby waits for it to expire (2s).
    await env.waitFor('standby took over', () => second.log().includes('became the leader'), 10_000);
    expect(leaseHolder()).not.toBe(holder);
    await env.apply(cr('TSDBSingle', 'after-failover', {}));
    await env.waitFor('new leader reconciles', () => env.ready('TSDBSingle', 'after-failover'));
  });
});

describe('operator resilience (custom resources: fake)', { timeout: 90_000 }, () => {
  let fake: Env;
  let operator: OperatorProcess;
  beforeAll(async () => {
    fake = await new Env({ mode: 'fake' }).start();
    operator = fake.operator();
  });
  afterAll(async () => fake.stop());

  it('relists the custom resources after their watches expire (410 Gone), without missing changes', async () => {
    await fake.apply(cr('TSDBSingle', 'before-410', {}));
    await fake.waitFor('resource Ready', () => fake.ready('TSDBSingle', 'before-410'));
    // Forget the history, then cut the watches: resuming from the old version answers 410. The
    // AuthProxyUser watch has had no event since the operator listed, so it is one that expires.
    fake.store.compact();
    fake.server.dropWatches();
    await fake.apply(cr('AuthProxyUser', 'after-410', { username: 'u', defaultURL: ['http://x'] }));
    await fake.waitFor('change seen after 410', async () => (await fake.phase('AuthProxyUser', 'after-410')) === 'Unselected');
    expect(operator.log()).toMatch(/watch expired; listing again \{"resource":"authproxyusers"/);
  });
});
