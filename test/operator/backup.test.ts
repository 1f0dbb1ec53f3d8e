import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { cr, Env, NS, REAL_CRS } from './harness.ts';

let env: Env;

interface Container {
  name: string;
  image: string;
  args: string[];
  volumeMounts: { name: string; mountPath: string }[];
}
const podSpec = (name: string) => (env.store.get(BUILTIN.statefulSet, { namespace: NS, name })!['spec'] as { template: { spec: { containers: Container[]; initContainers?: Container[]; volumes: { name: string }[] } } }).template.spec;
const backup = { destination: 's3://bucket/strata', credentialsSecret: { name: 's3', key: 'creds' }, retention: { keepLastDaily: 3 }, intervals: { monthly: false } };

describe.each(REAL_CRS)('backup and restore (custom resources: %s)', { timeout: 90_000 }, (mode) => {
  beforeAll(async () => {
    env = await new Env({ mode }).start();
    env.operator();
  });
  afterAll(async () => env.stop());

  it('adds a backup sidecar sharing the data volume of a TSDBSingle, snapshotting its own Pod', async () => {
    await env.apply(cr('TSDBSingle', 'db', { storage: { size: '5Gi' } }));
    await env.waitFor('single Ready', () => env.ready('TSDBSingle', 'db'));
    expect(podSpec('tsdb-single-db').containers.map((c) => c.name)).toEqual(['tsdb']);
    await env.apply(cr('TSDBSingle', 'db', { storage: { size: '5Gi' }, backup }));
    await env.waitFor('sidecar added', () => podSpec('tsdb-single-db').containers.length === 2);
    const sidecar = podSpec('tsdb-single-db').containers[1]!;
    expect(sidecar.image).toBe('strata/backupmanager:1.0.0');
    expect(sidecar.args).toEqual(expect.arrayContaining(['-dst=s3://bucket/strata', '-storageDataPath=/data', '-snapshot.createURL=http://localhost:8428/snapshot/create', '-keepLastDaily=3', '-disableMonthly=true', '-credsFilePath=/etc/strata/backup-credentials/creds']));
    expect(sidecar.volumeMounts).toEqual(expect.arrayContaining([{ name: 'data', mountPath: '/data' }]));
    // The Pod is replaced to pick the sidecar up, and the resource becomes Ready again.
    await env.waitFor('single Ready with backup', () => env.ready('TSDBSingle', 'db'));
    const pod = env.store.get(BUILTIN.pod, { namespace: NS, name: 'tsdb-single-db-0' })!;
    expect(((pod['spec'] as { containers: Container[] }).containers).map((c) => c.name)).toEqual(['tsdb', 'backup']);
  });

  it('runs `backupmanager restore` as an init container when restore.onStart is set', async () => {
    await env.apply(cr('TSDBSingle', 'db', { storage: { size: '5Gi' }, backup: { ...backup, restore: { onStart: true } } }));
    await env.waitFor('init container', () => (podSpec('tsdb-single-db').initContainers ?? []).length === 1);
    const init = podSpec('tsdb-single-db').initContainers![0]!;
    expect(init.name).toBe('restore');
    expect(init.args[0]).toBe('restore');
    expect(init.args).toEqual(expect.arrayContaining(['-dst=s3://bucket/strata', '-storageDataPath=/data']));
    await env.waitFor('Ready after restore init added', () => env.ready('TSDBSingle', 'db'));
  });

  it('gives each cluster storage Pod its own destination folder', async () => {
    await env.apply(cr('TSDBCluster', 'c', { storage: { replicas: 2, backup: { destination: 'gs://b/c/', restore: { onStart: true } } }, select: { replicas: 1 }, insert: { replicas: 1 } }));
    await env.waitFor('cluster Ready', () => env.ready('TSDBCluster', 'c'));
    const spec = podSpec('tsdb-storage-c');
    expect(spec.containers[1]!.args).toContain('-dst=gs://b/c/$(POD_NAME)');
    expect(spec.containers[1]!.args).toContain('-snapshot.createURL=http://localhost:8482/snapshot/create');
    expect(spec.initContainers![0]!.args).toContain('-dst=gs://b/c/$(POD_NAME)');
    const env0 = (spec.containers[1] as unknown as { env: KubeObject[] }).env;
    expect(env0).toContainEqual({ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } });
  });

  it('rejects a backup section without a destination (CRD schema)', async () => {
    await expect(env.apply(cr('TSDBSingle', 'bad', { backup: { concurrency: 2 } }))).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/destination/) });
  });
});
