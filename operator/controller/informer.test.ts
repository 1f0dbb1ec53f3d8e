import { describe, expect, it } from 'vitest';
import { FakeKubeClient, newStore } from '../k8s/fake/index.ts';
import { BUILTIN } from '../k8s/resources.ts';
import type { KubeObject } from '../k8s/types.ts';
import { realClock } from '../runtime/clock.ts';
import { Informer } from './informer.ts';
import type { InformerEvent } from './informer.ts';
import { MemoryLogger } from '../runtime/logger.ts';

const cm = (name: string, ns = 'a'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { v: name } });
const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

function setup(namespaces?: string[]) {
  const store = newStore();
  const client = new FakeKubeClient(store);
  const informer = new Informer({
    client,
    type: BUILTIN.configMap,
    namespaces,
    log: new MemoryLogger(),
    clock: realClock,
    resyncMs: 0,
    backoff: { baseMs: 5, maxMs: 20 },
    watchTimeoutSeconds: 60,
  });
  const events: string[] = [];
  informer.on((e: InformerEvent) => events.push(`${e.type} ${e.object.metadata.name}`));
  const ctl = new AbortController();
  const done = informer.run(ctl.signal);
  return { store, informer, events, stop: async () => { ctl.abort(); await done; } };
}

describe('Informer', () => {
  it('lists, then follows changes', async () => {
    const t = setup();
    t.store.create(BUILTIN.configMap, cm('x'));
    await until(() => t.informer.synced && t.informer.get({ namespace: 'a', name: 'x' }) !== undefined);
    t.store.patch(BUILTIN.configMap, { namespace: 'a', name: 'x' }, { data: { v: '2' } });
    t.store.delete(BUILTIN.configMap, { namespace: 'a', name: 'x' });
    await until(() => t.events.includes('DELETED x'));
    expect(t.events).toEqual(['ADDED x', 'MODIFIED x', 'DELETED x']);
    await t.stop();
  });

  it('resumes after a dropped watch without losing events', async () => {
    const t = setup();
    await until(() => t.informer.synced);
    t.store.closeWatches();
    t.store.create(BUILTIN.configMap, cm('y'));
    await until(() => t.informer.get({ namespace: 'a', name: 'y' }) !== undefined);
    await t.stop();
  });

  it('relists after 410 and reports deletions it missed', async () => {
    const t = setup();
    t.store.create(BUILTIN.configMap, cm('gone'));
    await until(() => t.informer.get({ namespace: 'a', name: 'gone' }) !== undefined);
    // Lose the watch, change things while nobody watches, then forget the history.
    const stopWatching = t.store.closeWatches.bind(t.store);
    stopWatching();
    t.store.delete(BUILTIN.configMap, { namespace: 'a', name: 'gone' });
    t.store.create(BUILTIN.configMap, cm('new'));
    t.store.compact();
    await until(() => t.informer.get({ namespace: 'a', name: 'gone' }) === undefined && t.informer.get({ namespace: 'a', name: 'new' }) !== undefined);
    expect(t.events).toContain('DELETED gone');
    await t.stop();
  });

  it('watches only the given namespaces', async () => {
    const t = setup(['a', 'b']);
    t.store.create(BUILTIN.configMap, cm('in-a', 'a'));
    t.store.create(BUILTIN.configMap, cm('in-c', 'c'));
    t.store.create(BUILTIN.configMap, cm('in-b', 'b'));
    await until(() => t.informer.list().length === 2);
    expect(t.informer.list().map((o) => o.metadata.name).sort()).toEqual(['in-a', 'in-b']);
    await t.stop();
  });
});
