import { afterEach, describe, expect, it } from 'vitest';
import { FakeKubeClient, newStore, simulateControllers } from '../k8s/fake/index.ts';
import type { ObjectStore, Simulation } from '../k8s/fake/index.ts';
import { BUILTIN, CUSTOM } from '../k8s/resources.ts';
import type { KubeObject } from '../k8s/types.ts';
import { realClock } from '../runtime/clock.ts';
import type { OperatorOptions } from './context.ts';
import { MemoryLogger } from '../runtime/logger.ts';
import { Manager } from './manager.ts';

const OPTIONS: OperatorOptions = {
  build: { images: { tsdb: 'strata/tsdb:1', gateway: 'strata/gateway:1', authproxy: 'strata/authproxy:1', backupmanager: 'strata/backupmanager:1' } },
  fieldManager: 'strata-operator',
  watchNamespaces: undefined,
  progressDeadlineMs: 60_000,
  rolloutPollMs: 20,
  resyncMs: 0,
  workers: 2,
  backoff: { baseMs: 10, maxMs: 200 },
  watchTimeoutSeconds: 300,
};

interface Harness {
  store: ObjectStore;
  sim: Simulation;
  stop: () => Promise<void>;
}
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

function start(opts: Partial<OperatorOptions> = {}): Harness {
  const store = newStore();
  store.create(BUILTIN.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'm', labels: { team: 'x' } } });
  const sim = simulateControllers(store, { readyDelayMs: 2 });
  const ctl = new AbortController();
  const metrics = { reconcileFinished: () => {}, setQueueDepth: () => {} };
  const mgr = new Manager({ client: new FakeKubeClient(store), options: { ...OPTIONS, ...opts }, log: new MemoryLogger(), clock: realClock, metrics, identity: 'test' });
  const done = mgr.run(ctl.signal);
  harness = { store, sim, stop: async () => { ctl.abort(); await done; sim.stop(); } };
  return harness;
}

const until = async (what: string, cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
const cr = (kind: string, name: string, spec: unknown): KubeObject => ({ apiVersion: 'strata.dev/v1beta1', kind, metadata: { name, namespace: 'm' }, spec });
const phase = (store: ObjectStore, kind: string, name: string) => (store.get(CUSTOM[kind]!, { namespace: 'm', name })?.['status'] as { phase?: string } | undefined)?.phase;
const image = (o: KubeObject | undefined) => ((o?.['spec'] as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template.spec.containers[0]?.image);

describe('Manager with the in-memory API', () => {
  it('brings a TSDBCluster to Ready and rolls a new image storage → select → insert', async () => {
    const { store } = start();
    store.create(CUSTOM.TSDBCluster!, cr('TSDBCluster', 'c', { storage: { replicas: 3, podDisruptionBudget: { maxUnavailable: 1 } } }));
    await until('cluster Ready', () => phase(store, 'TSDBCluster', 'c') === 'Ready');
    const get = (kind: 'statefulSet' | 'deployment', name: string) => store.get(BUILTIN[kind], { namespace: 'm', name });
    // Record the order in which workloads take the new image.
    const order: string[] = [];
    store.onChange(({ event }) => {
      const o = event.object;
      if ((o.kind === 'StatefulSet' || o.kind === 'Deployment') && image(o) === 'strata/tsdb:2' && !order.includes(o.metadata.name!)) order.push(o.metadata.name!);
      if (o.kind === 'Pod' && event.type === 'DELETED' && o.metadata.name!.startsWith('tsdb-storage-c-')) order.push(`evict ${o.metadata.name}`);
    });
    const live = store.get(CUSTOM.TSDBCluster!, { namespace: 'm', name: 'c' })!;
    store.replace(CUSTOM.TSDBCluster!, { ...live, spec: { ...(live['spec'] as object), image: { tag: '2' } } });
    await until('cluster Ready after the rollout', () => image(get('deployment', 'tsdb-insert-c')) === 'strata/tsdb:2' && phase(store, 'TSDBCluster', 'c') === 'Ready', 10_000);
    expect(order).toEqual(['tsdb-storage-c', 'evict tsdb-storage-c-2', 'evict tsdb-storage-c-1', 'evict tsdb-storage-c-0', 'tsdb-select-c', 'tsdb-insert-c']);
  });

  it('keeps bad AuthProxyUsers out of the config and reports them on their status', async () => {
    const { store } = start();
    store.create(BUILTIN.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pw', namespace: 'm' }, data: { password: Buffer.from('p').toString('base64') } });
    store.create(CUSTOM.AuthProxy!, cr('AuthProxy', 'p', { userSelector: { matchLabels: { proxy: 'p' } } }));
    const user = (name: string, spec: object) => ({ ...cr('AuthProxyUser', name, spec), metadata: { name, namespace: 'm', labels: { proxy: 'p' } } });
    store.create(CUSTOM.AuthProxyUser!, user('good', { username: 'good', passwordRef: { name: 'pw', key: 'password' }, defaultURL: ['http://x'] }));
    store.create(CUSTOM.AuthProxyUser!, user('bad', { username: 'bad', passwordRef: { name: 'nope', key: 'password' }, defaultURL: ['http://x'] }));
    const userPhase = (n: string) => phase(store, 'AuthProxyUser', n);
    await until('user verdicts', () => userPhase('good') === 'Accepted' && userPhase('bad') === 'Rejected');
    const config = () => Buffer.from((store.get(BUILTIN.secret, { namespace: 'm', name: 'authproxy-p-config' })?.['data'] as Record<string, string>)['config.yaml']!, 'base64').toString();
    expect(config()).toContain('username: good');
    expect(config()).not.toContain('username: bad');
    // Fixing the Secret brings the user in without touching anything else.
    store.create(BUILTIN.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'nope', namespace: 'm' }, data: { password: Buffer.from('q').toString('base64') } });
    await until('fixed user accepted', () => userPhase('bad') === 'Accepted' && config().includes('username: bad'));
  });

  it('prunes children the spec no longer needs and leaves a paused resource alone', async () => {
    const { store } = start();
    store.create(CUSTOM.TSDBCluster!, cr('TSDBCluster', 'c', { storage: { replicas: 1 }, select: { replicas: 1, podDisruptionBudget: { minAvailable: 1 } }, insert: { replicas: 1 } }));
    const pdb = () => store.get(BUILTIN.podDisruptionBudget, { namespace: 'm', name: 'tsdb-select-c' });
    await until('PDB created', () => pdb() !== undefined && phase(store, 'TSDBCluster', 'c') === 'Ready');
    let live = store.get(CUSTOM.TSDBCluster!, { namespace: 'm', name: 'c' })!;
    store.replace(CUSTOM.TSDBCluster!, { ...live, spec: { storage: { replicas: 1 }, select: { replicas: 1 }, insert: { replicas: 1 } } });
    await until('PDB pruned', () => pdb() === undefined);
    live = store.get(CUSTOM.TSDBCluster!, { namespace: 'm', name: 'c' })!;
    store.replace(CUSTOM.TSDBCluster!, { ...live, spec: { ...(live['spec'] as object), paused: true, insert: { replicas: 3 } } });
    await until('paused phase', () => phase(store, 'TSDBCluster', 'c') === 'Paused');
    await new Promise((r) => setTimeout(r, 100));
    expect((store.get(BUILTIN.deployment, { namespace: 'm', name: 'tsdb-insert-c' })!['spec'] as { replicas: number }).replicas).toBe(1);
  });
});
