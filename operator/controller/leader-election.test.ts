import { describe, expect, it } from 'vitest';
import { FakeKubeClient, newStore } from '../k8s/fake/index.ts';
import { BUILTIN } from '../k8s/resources.ts';
import { realClock } from '../runtime/clock.ts';
import { LeaderElector } from './leader-election.ts';
import { MemoryLogger } from '../runtime/logger.ts';

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

const elector = (client: FakeKubeClient, identity: string, leaseDurationMs = 300) =>
  new LeaderElector({ client, namespace: 'op', name: 'lease', identity, leaseDurationMs, renewDeadlineMs: leaseDurationMs - 100, retryPeriodMs: 20, clock: realClock, log: new MemoryLogger() });

describe('LeaderElector', () => {
  it('elects one leader and hands over when it stops', async () => {
    const store = newStore();
    const client = new FakeKubeClient(store);
    // A long lease: b can only take over this fast because a releases it.
    const a = elector(client, 'a', 5000);
    const b = elector(client, 'b', 5000);
    const ca = new AbortController();
    const cb = new AbortController();
    const leading = new Set<string>();
    const lead = (id: string) => async (signal: AbortSignal) => {
      leading.add(id);
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      leading.delete(id);
    };
    const ra = a.run(ca.signal, lead('a'));
    await until(() => a.isLeader);
    const rb = b.run(cb.signal, lead('b'));
    await new Promise((r) => setTimeout(r, 100));
    expect([...leading]).toEqual(['a']);
    expect(b.isLeader).toBe(false);
    ca.abort();
    await ra;
    // The lease was released, so b takes over well before a lease duration passes.
    await until(() => b.isLeader, 2000);
    expect([...leading]).toEqual(['b']);
    const lease = store.get(BUILTIN.lease, { namespace: 'op', name: 'lease' })!;
    expect((lease['spec'] as { holderIdentity: string; leaseTransitions: number }).holderIdentity).toBe('b');
    cb.abort();
    await rb;
  });

  it('takes over a lease whose holder stopped renewing after the lease duration', async () => {
    const store = newStore();
    const client = new FakeKubeClient(store);
    store.create(BUILTIN.lease, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lease', namespace: 'op' }, spec: { holderIdentity: 'dead', leaseDurationSeconds: 1, renewTime: new Date().toISOString() } });
    const b = elector(client, 'b');
    const cb = new AbortController();
    const started = Date.now();
    const rb = b.run(cb.signal, async (s) => void (await new Promise<void>((r) => s.addEventListener('abort', () => r(), { once: true }))));
    await until(() => b.isLeader, 3000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    cb.abort();
    await rb;
  });
});
