import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../operator/runtime/clock.ts';
import type { ReconcileContext, ReconcileOptions, Reader } from '../../operator/reconcile/context.ts';
import { EventRecorder } from '../../operator/runtime/events.ts';
import { MemoryLogger } from '../../operator/runtime/logger.ts';
import type { KubeClient } from '../../operator/k8s/client.ts';
import { resourcePath, RestKubeClient } from '../../operator/k8s/rest-client.ts';
import { CUSTOM } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { recordedImages, recordImages } from '../../operator/reconcile/images.ts';
import { componentStatus } from '../../operator/reconcile/rollout.ts';
import { conditionsFor, errorStatus, writeStatus } from '../../operator/reconcile/status.ts';
import { FakeApiServer } from '../k8s/server.ts';
import { RawKubeClient } from './client.ts';
import { realCrdServer } from './crds.ts';

// The status and scale subresources as the operator uses them, on the real API server: status is
// server-side applied under two field managers (the main status, and status.resolvedImages by
// reconcile/images.ts), a user may delete a recorded image with a merge patch, and the scale
// subresource (HPA, `kubectl scale`) reads status.replicas / status.selector and writes
// spec.replicas. The status sequence also runs on the fake API server, which must end with the
// same status.
const FIXTURES = join(import.meta.dirname, '..', '..', 'operator', 'factory', 'testdata');
const NOW = Date.parse('2026-01-02T03:04:05Z');
const DEADLINE_MS = 15 * 60_000;
const OPTIONS: ReconcileOptions = {
  build: { images: { tsdb: 'strata/tsdb:0.1.0', gateway: 'strata/gateway:0.1.0', authproxy: 'strata/authproxy:0.1.0', backupmanager: 'strata/backupmanager:0.1.0' } },
  fieldManager: 'strata-operator',
  watchNamespaces: undefined,
  progressDeadlineMs: DEADLINE_MS,
  rolloutPollMs: 1000,
};

interface Side {
  readonly client: KubeClient;
  readonly raw: RawKubeClient;
  readonly ctx: ReconcileContext;
}

/** side wraps one API server (real or fake) in the operator's client and a reconcile context. */
function side(kc: KubeConfig): Side {
  const client = new RestKubeClient(kc);
  const log = new MemoryLogger();
  // The status writers read nothing from the informer caches: an empty cache is what they see.
  const empty: Reader = { get: () => undefined, list: () => [] };
  const ctx: ReconcileContext = { client, reader: empty, untracked: empty, events: new EventRecorder({ client, clock: realClock, log, component: 'test', instance: 't' }), log, options: OPTIONS, clock: realClock };
  return { client, raw: new RawKubeClient(kc), ctx };
}

const gatewayFixture = () => load(readFileSync(join(FIXTURES, 'gateway-cluster.yaml'), 'utf8')) as KubeObject;
const key = (obj: KubeObject) => ({ namespace: obj.metadata.namespace!, name: obj.metadata.name! });
const get = async (s: Side, obj: KubeObject) => (await s.client.get(CUSTOM[obj.kind]!, key(obj)))!;

/** gatewayStatus is what the TSDBGateway controller writes for a Deployment not created yet. */
function gatewayStatus(cr: KubeObject, outcome: Parameters<typeof conditionsFor>[1]): Record<string, unknown> {
  const generation = cr.metadata.generation ?? 0;
  const prev = ((cr['status'] as { conditions?: [] } | undefined)?.conditions ?? []);
  const { conditions, phase } = conditionsFor(prev, outcome, generation, NOW, DEADLINE_MS);
  const gateway = componentStatus(undefined, (cr['spec'] as { replicas: number }).replicas);
  return { observedGeneration: generation, phase, conditions, gateway, replicas: gateway.readyReplicas, selector: `app.kubernetes.io/instance=${cr.metadata.name},app.kubernetes.io/managed-by=strata-operator,app.kubernetes.io/name=tsdb-gateway` };
}

/** statusSequence replays the operator's status writes and a user's edit; returns the final object. */
async function statusSequence(s: Side, namespace: string): Promise<KubeObject> {
  const cr = { ...gatewayFixture(), metadata: { ...gatewayFixture().metadata, namespace } };
  await s.client.apply(cr, { fieldManager: 'kubectl', force: true });
  await recordImages(s.ctx, await get(s, cr), { gateway: 'strata/gateway:0.1.0' });
  await writeStatus(s.ctx, await get(s, cr), gatewayStatus(await get(s, cr), { paused: false, progressing: { reason: 'NotCreated', message: 'the gateway Deployment does not exist' } }));
  const recorded = await get(s, cr);
  expect(recordedImages(recorded)).toEqual({ gateway: 'strata/gateway:0.1.0' });
  expect(recorded['status']).toMatchObject({ phase: 'Progressing', replicas: 0, gateway: { ready: '0/2' } });
  const managers = (recorded.metadata.managedFields ?? []) as { manager: string; subresource?: string }[];
  expect(managers.filter((m) => m.subresource === 'status').map((m) => m.manager).sort()).toEqual(['strata-operator', 'strata-operator-images']);
  // A main status write from a reconcile that read the record keeps it.
  await writeStatus(s.ctx, recorded, gatewayStatus(recorded, { paused: false }));
  expect(recordedImages(await get(s, cr))).toEqual({ gateway: 'strata/gateway:0.1.0' });
  // A user removes the record to move to the operator default; a reconcile that read the old
  // record neither records it again (unchanged images) nor brings it back with the main status.
  const removed = await s.raw.request('PATCH', `${resourcePath(CUSTOM[cr.kind]!, namespace, cr.metadata.name)}/status`, {
    body: { status: { resolvedImages: { gateway: null } } },
    contentType: 'application/merge-patch+json',
  });
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  await recordImages(s.ctx, recorded, { gateway: 'strata/gateway:0.1.0' });
  await writeStatus(s.ctx, recorded, gatewayStatus(recorded, { paused: false }));
  expect(recordedImages(await get(s, cr))).toEqual({});
  // A failed reconcile reports Degraded and leaves the record to its own manager.
  await recordImages(s.ctx, await get(s, cr), { gateway: 'strata/gateway:0.2.0' });
  const before = await get(s, cr);
  await writeStatus(s.ctx, before, errorStatus(before, new Error('cannot read Secret "jwt-keys": not found'), NOW, DEADLINE_MS));
  const after = await get(s, cr);
  expect(after['status']).toMatchObject({ phase: 'Degraded', resolvedImages: { gateway: 'strata/gateway:0.2.0' } });
  expect(after.metadata.generation).toBe(1);
  return after;
}

let real: Side;
let fake: FakeApiServer;
let fakeSide: Side;

beforeAll(async () => {
  real = side((await realCrdServer()).kubeConfig);
  fake = new FakeApiServer();
  await fake.start();
  const kc = new KubeConfig();
  kc.loadFromString(fake.kubeconfig('test'));
  fakeSide = side(kc);
});

afterAll(async () => {
  await Promise.all([real?.raw.close(), fakeSide?.raw.close(), (real?.client as RestKubeClient | undefined)?.close(), (fakeSide?.client as RestKubeClient | undefined)?.close()]);
  await fake?.stop();
});

describe('status subresource on the real API server', () => {
  it('takes the operator status writes under both field managers and ends like the fake', async () => {
    const onReal = await statusSequence(real, 'status-real');
    const onFake = await statusSequence(fakeSide, 'status-fake');
    expect(onFake['status']).toEqual(onReal['status']);
    expect(onFake['spec']).toEqual(onReal['spec']);
  });

  it('refuses a status outside the schema with the same message as the fake', async () => {
    const messages: string[] = [];
    for (const [s, namespace] of [[real, 'status-bad-real'], [fakeSide, 'status-bad-fake']] as const) {
      const cr = { ...gatewayFixture(), metadata: { ...gatewayFixture().metadata, namespace } };
      await s.client.apply(cr, { fieldManager: 'kubectl', force: true });
      const live = await get(s, cr);
      const err = await writeStatus(s.ctx, live, { ...gatewayStatus(live, { paused: false }), phase: 'Bogus' }).then(() => undefined, (e: Error) => e);
      expect(err?.message).toMatch(/status\.phase: Unsupported value: "Bogus": supported values: "Ready", "Progressing", "Degraded", "Paused"/);
      messages.push(err!.message.replace(/^.*? is invalid: /, ''));
    }
    // The real server lists several errors as "[a, b]", the fake as "a; b" (test/k8s/server.ts).
    for (const line of messages[1]!.split('; ')) expect(messages[0]).toContain(line);
  });
});

describe('scale subresource on the real API server', () => {
  const scalePath = (kind: string, namespace: string, name: string) => `${resourcePath(CUSTOM[kind]!, namespace, name)}/scale`;

  it.each([
    ['TSDBGateway', 'gateway-cluster.yaml', 'tsdb-gateway'],
    ['AuthProxy', 'authproxy.yaml', 'authproxy'],
  ])('%s: reads the replicas and selector the operator reports, and scales spec.replicas', async (kind, file, component) => {
    const namespace = `scale-${kind.toLowerCase()}`;
    const fixture = load(readFileSync(join(FIXTURES, file), 'utf8')) as KubeObject;
    const cr = { ...fixture, metadata: { ...fixture.metadata, namespace } };
    await real.client.apply(cr, { fieldManager: 'kubectl', force: true });
    const live = await get(real, cr);
    const replicas = (live['spec'] as { replicas: number }).replicas;
    const selector = `app.kubernetes.io/instance=${cr.metadata.name},app.kubernetes.io/managed-by=strata-operator,app.kubernetes.io/name=${component}`;
    // What the controllers write: ready Pods as status.replicas, and the Pod selector.
    await writeStatus(real.ctx, live, { observedGeneration: 1, phase: 'Progressing', replicas: 1, selector });
    const scale = await real.raw.request('GET', scalePath(kind, namespace, cr.metadata.name!));
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas }, status: { replicas: 1, selector } });
    const scaled = await real.raw.request('PATCH', scalePath(kind, namespace, cr.metadata.name!), { body: { spec: { replicas: replicas + 2 } }, contentType: 'application/merge-patch+json' });
    expect(scaled.status, JSON.stringify(scaled.body)).toBe(200);
    const after = await get(real, cr);
    expect((after['spec'] as { replicas: number }).replicas).toBe(replicas + 2);
    expect(after.metadata.generation).toBe(2);
    expect(after['status']).toMatchObject({ replicas: 1, selector });
    const negative = await real.raw.request('PATCH', scalePath(kind, namespace, cr.metadata.name!), { body: { spec: { replicas: -1 } }, contentType: 'application/merge-patch+json' });
    expect(negative.status).toBe(422);
    expect(String(negative.body['message'])).toMatch(/spec\.replicas.*greater than or equal to 0/);
  });

  it('is not served for the kinds without a replica count', async () => {
    for (const kind of ['TSDBSingle', 'TSDBCluster', 'AuthProxyUser']) {
      const res = await real.raw.request('GET', scalePath(kind, 'scale-none', 'x'));
      expect(res.status, kind).toBe(404);
    }
  });
});
