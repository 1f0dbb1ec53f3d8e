import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../errors.ts';
import { BUILTIN } from '../resources.ts';
import type { WatchEvent } from '../client.ts';
import type { KubeObject } from '../types.ts';
import { evictPod, newStore, simulateControllers } from './index.ts';

const cm = (name: string, data: Record<string, string>, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', labels },
  data,
});
const key = (name: string) => ({ namespace: 'ns', name });
const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('ObjectStore', () => {
  it('versions objects and rejects stale updates with 409', () => {
    const store = newStore();
    const a = store.create(BUILTIN.configMap, cm('a', { x: '1' }));
    expect(a.metadata.generation).toBe(1);
    const b = store.replace(BUILTIN.configMap, { ...a, data: { x: '2' } });
    expect(Number(b.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    expect(b.metadata.generation).toBe(2);
    expect(() => store.replace(BUILTIN.configMap, { ...a, data: { x: '3' } })).toThrow(expect.objectContaining({ status: 409 }));
    expect(() => store.create(BUILTIN.configMap, cm('a', {}))).toThrow(expect.objectContaining({ status: 409, reason: 'AlreadyExists' }));
  });

  it('server-side apply is idempotent and drops fields the manager stopped setting', () => {
    const store = newStore();
    const first = store.apply(BUILTIN.configMap, cm('a', { x: '1', y: '2' }), { manager: 'op', force: true });
    const again = store.apply(BUILTIN.configMap, cm('a', { x: '1', y: '2' }), { manager: 'op', force: true });
    expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    const third = store.apply(BUILTIN.configMap, cm('a', { x: '1' }), { manager: 'op', force: true });
    expect(third['data']).toEqual({ x: '1' });
  });

  it('keeps status and spec writes apart for kinds with a status subresource', () => {
    const store = newStore();
    const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { replicas: 1 }, status: { replicas: 9 } };
    const created = store.create(BUILTIN.deployment, dep);
    expect(created['status']).toBeUndefined();
    const withStatus = store.replace(BUILTIN.deployment, { ...created, status: { replicas: 1 } }, 'status');
    expect(withStatus.metadata.generation).toBe(1);
    const specOnly = store.replace(BUILTIN.deployment, { ...withStatus, spec: { replicas: 2 }, status: { replicas: 5 } });
    expect(specOnly['status']).toEqual({ replicas: 1 });
    expect(specOnly.metadata.generation).toBe(2);
  });

  it('replays watches from a resourceVersion, filters by selector, and answers 410 after compaction', () => {
    const store = newStore();
    const a = store.create(BUILTIN.configMap, cm('a', {}, { app: 'x' }));
    const rv = a.metadata.resourceVersion!;
    store.create(BUILTIN.configMap, cm('b', {}, { app: 'x' }));
    store.create(BUILTIN.configMap, cm('c', {}, { app: 'y' }));
    const seen: string[] = [];
    const stop = store.watch(BUILTIN.configMap, { resourceVersion: rv, labelSelector: 'app=x' }, (e: WatchEvent) => seen.push(`${e.type} ${e.object.metadata.name}`));
    store.patch(BUILTIN.configMap, key('b'), { metadata: { labels: { app: 'z' } } });
    stop();
    expect(seen).toEqual(['ADDED b', 'DELETED b']);
    store.compact();
    expect(() => store.watch(BUILTIN.configMap, { resourceVersion: rv }, () => {})).toThrow(KubeApiError);
  });

  it('garbage-collects dependents of a deleted owner and honours finalizers', async () => {
    const store = newStore();
    const owner = store.create(BUILTIN.configMap, cm('owner', {}));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid!, controller: true };
    store.create(BUILTIN.configMap, { ...cm('child', {}), metadata: { name: 'child', namespace: 'ns', ownerReferences: [ref] } });
    store.create(BUILTIN.configMap, { ...cm('held', {}), metadata: { name: 'held', namespace: 'ns', finalizers: ['x/y'] } });
    store.delete(BUILTIN.configMap, key('owner'));
    await until(() => store.get(BUILTIN.configMap, key('child')) === undefined);
    store.delete(BUILTIN.configMap, key('held'));
    const held = store.get(BUILTIN.configMap, key('held'))!;
    expect(held.metadata.deletionTimestamp).toBeDefined();
    store.replace(BUILTIN.configMap, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(store.get(BUILTIN.configMap, key('held'))).toBeUndefined();
  });

  it('garbage-collects an object created after its owner was deleted (a controller acting on a stale cache)', async () => {
    const store = newStore();
    const owner = store.create(BUILTIN.configMap, cm('owner', {}));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid!, controller: true };
    store.create(BUILTIN.configMap, { ...cm('early', {}), metadata: { name: 'early', namespace: 'ns', ownerReferences: [ref] } });
    store.delete(BUILTIN.configMap, key('owner'));
    // The collection that follows the deletion has run once the earlier dependent is gone.
    await until(() => store.get(BUILTIN.configMap, key('early')) === undefined);
    store.create(BUILTIN.configMap, { ...cm('late', {}), metadata: { name: 'late', namespace: 'ns', ownerReferences: [ref] } });
    await until(() => store.get(BUILTIN.configMap, key('late')) === undefined);
  });

  it('asks foreignOwner about owners it does not serve, and keeps dependents it vouches for', () => {
    const remote = new Map<string, boolean>([['live', true], ['gone', false]]);
    const store = newStore({ foreignOwner: (ref) => (ref.apiVersion.startsWith('strata.dev/') ? remote.get(ref.uid) : undefined) }, null);
    expect(store.types().some((t) => t.group === 'strata.dev')).toBe(false);
    const child = (name: string, uid: string) => ({ ...cm(name, {}), metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', name: 'x', uid }] } });
    store.create(BUILTIN.configMap, child('of-live', 'live'));
    store.create(BUILTIN.configMap, child('of-gone', 'gone'));
    // A local owner reference is still the store's to resolve.
    store.create(BUILTIN.configMap, { ...cm('of-local', {}), metadata: { name: 'of-local', namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nope', uid: 'nope' }] } });
    expect(store.collectGarbage()).toBe(2);
    expect(store.list(BUILTIN.configMap).items.map((o) => o.metadata.name)).toEqual(['of-live']);
    remote.set('live', false);
    expect(store.collectGarbage()).toBe(1);
  });
});

describe('simulated controllers and eviction', () => {
  it('runs StatefulSet Pods to readiness and enforces PodDisruptionBudgets on eviction', async () => {
    const store = newStore();
    const sim = simulateControllers(store, { readyDelayMs: 1 });
    const template = { metadata: { labels: { app: 's' } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } };
    store.create(BUILTIN.statefulSet, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 's', namespace: 'ns' },
      spec: { replicas: 2, serviceName: 's', selector: { matchLabels: { app: 's' } }, template, updateStrategy: { type: 'OnDelete' } },
    });
    store.create(BUILTIN.podDisruptionBudget, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p', namespace: 'ns' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 's' } } } });
    const readyReplicas = () => (store.get(BUILTIN.statefulSet, key('s'))!['status'] as { readyReplicas?: number } | undefined)?.readyReplicas;
    await until(() => readyReplicas() === 2);
    evictPod(store, key('s-0'));
    expect(() => evictPod(store, key('s-1'))).toThrow(expect.objectContaining({ status: 429 }));
    await until(() => readyReplicas() === 2);
    sim.stop();
  });
});
