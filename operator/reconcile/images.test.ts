import { describe, expect, it } from 'vitest';
import { realClock } from '../runtime/clock.ts';
import type { ReconcileContext, ReconcileOptions, Reader } from './context.ts';
import { EventRecorder } from '../runtime/events.ts';
import { MemoryLogger } from '../runtime/logger.ts';
import { FakeKubeClient, newStore } from '../k8s/fake/index.ts';
import { CUSTOM } from '../k8s/resources.ts';
import type { KubeObject } from '../k8s/types.ts';
import { buildOptionsFor, recordedImages, recordImages } from './images.ts';
import { errorStatus, writeStatus } from './status.ts';

const OPTIONS: ReconcileOptions = {
  build: { images: { tsdb: 'strata/tsdb:1', gateway: 'strata/gateway:1', authproxy: 'strata/authproxy:1', backupmanager: 'strata/backupmanager:1' } },
  fieldManager: 'strata-operator',
  watchNamespaces: undefined,
  progressDeadlineMs: 60_000,
  rolloutPollMs: 20,
};

function setup() {
  const store = newStore();
  const client = new FakeKubeClient(store);
  const reader: Reader = { get: (type, key) => store.get(type, key), list: (type, namespace) => store.list(type, { namespace }).items };
  const log = new MemoryLogger();
  const ctx: ReconcileContext = { client, reader, untracked: reader, events: new EventRecorder({ client, clock: realClock, log, component: 'test', instance: 't' }), log, options: OPTIONS, clock: realClock };
  store.create(CUSTOM.TSDBSingle!, { apiVersion: 'strata.dev/v1beta1', kind: 'TSDBSingle', metadata: { name: 'db', namespace: 'm' }, spec: {} });
  const live = () => store.get(CUSTOM.TSDBSingle!, { namespace: 'm', name: 'db' })!;
  const applies = () => client.calls.filter((c) => c.startsWith('apply-status')).length;
  return { store, ctx, live, applies };
}

describe('recordedImages', () => {
  it('reads string entries of status.resolvedImages', () => {
    const f = (status: unknown, want: Record<string, string> | undefined) => expect(recordedImages({ apiVersion: 'v', kind: 'K', metadata: {}, status } as KubeObject)).toEqual(want);
    f(undefined, undefined);
    f({}, undefined);
    f({ resolvedImages: 'x' }, undefined);
    f({ resolvedImages: ['x'] }, undefined);
    f({ resolvedImages: {} }, {});
    f({ resolvedImages: { tsdb: 'r/t:1', backup: '', x: 3 } }, { tsdb: 'r/t:1' });
  });

  it('feeds the record to the builders and leaves the defaults alone', () => {
    const { ctx } = setup();
    const f = (status: unknown, want: Record<string, string> | undefined) => {
      const opts = buildOptionsFor(ctx, { apiVersion: 'v', kind: 'K', metadata: {}, status } as KubeObject);
      expect(opts.recordedImages).toEqual(want);
      expect(opts.images).toBe(OPTIONS.build.images);
    };
    f(undefined, undefined);
    f({ resolvedImages: { tsdb: 'r/t:0' } }, { tsdb: 'r/t:0' });
  });
});

describe('recordImages', () => {
  it('writes the record once, keeps it through main status writes, and drops containers no longer built', async () => {
    const { ctx, live, applies } = setup();
    await recordImages(ctx, live(), { tsdb: 'r/t:1', backup: 'r/b:1' });
    expect(recordedImages(live())).toEqual({ tsdb: 'r/t:1', backup: 'r/b:1' });
    await recordImages(ctx, live(), { backup: 'r/b:1', tsdb: 'r/t:1' });
    expect(applies()).toBe(1);
    await writeStatus(ctx, live(), { observedGeneration: 1, phase: 'Ready' });
    await writeStatus(ctx, live(), { observedGeneration: 1, phase: 'Progressing' });
    expect(recordedImages(live())).toEqual({ tsdb: 'r/t:1', backup: 'r/b:1' });
    await recordImages(ctx, live(), { tsdb: 'r/t:1' });
    expect(recordedImages(live())).toEqual({ tsdb: 'r/t:1' });
    expect(live().metadata.managedFields?.map((m) => (m as { manager: string }).manager)).toEqual(expect.arrayContaining(['strata-operator', 'strata-operator-images']));
  });

  it('does not put back an entry a user removed while a reconcile had read the old record', async () => {
    const { store, ctx, live, applies } = setup();
    await recordImages(ctx, live(), { tsdb: 'r/t:1' });
    const stale = live();
    store.patch(CUSTOM.TSDBSingle!, { namespace: 'm', name: 'db' }, { status: { resolvedImages: { tsdb: null } } }, 'status');
    await recordImages(ctx, stale, { tsdb: 'r/t:1' });
    await writeStatus(ctx, stale, { observedGeneration: 1, phase: 'Ready' });
    expect(applies()).toBe(2);
    expect(recordedImages(live())).toEqual({});
    // The next reconcile reads the removal and records the image it builds now.
    await recordImages(ctx, live(), { tsdb: 'r/t:2' });
    expect(recordedImages(live())).toEqual({ tsdb: 'r/t:2' });
  });

  it('is left out of the status written for a failed reconcile', () => {
    const { live } = setup();
    const obj = { ...live(), status: { phase: 'Ready', resolvedImages: { tsdb: 'r/t:1' }, tsdb: { ready: '1/1' } } };
    const st = errorStatus(obj, new Error('boom'), Date.parse('2024-01-01T00:00:00Z'), 60_000);
    expect(st['resolvedImages']).toBeUndefined();
    expect(st['tsdb']).toEqual({ ready: '1/1' });
  });
});
