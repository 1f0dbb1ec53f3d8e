// Installs CustomResourceDefinitions on the real API server by server-side apply (as
// `kubectl apply --server-side -f crds/` does) and waits until they are Established. The server
// validates every apply in full, so applying a CRD that already exists still proves the server
// accepts its text. Several test files share the run's server: applying the same CRDs twice is
// a no-op.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { load } from 'js-yaml';
import { realApiServer } from './apiserver.ts';
import type { RealApiServer } from './apiserver.ts';
import { invalidLines, RawKubeClient } from './client.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Crd is the part of a CustomResourceDefinition the tests read. */
export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { group: string; names: { kind: string; plural: string }; versions: { name: string }[] };
}

/** crdsIn parses the CRD files of a folder of the repository (crds/ or the chart's crds/). */
export function crdsIn(dir: string): Crd[] {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => load(readFileSync(join(ROOT, dir, f), 'utf8')) as Crd);
}

/** applyCrd server-side applies one CRD; throws with the server's field errors when refused. */
export async function applyCrd(client: RawKubeClient, crd: Crd, fieldManager: string): Promise<void> {
  const res = await client.request('PATCH', `${CRD_PATH}/${crd.metadata.name}`, {
    query: { fieldManager, force: 'true', fieldValidation: 'Strict' },
    body: crd,
    contentType: 'application/apply-patch+yaml',
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`the API server refused CRD ${crd.metadata.name} (${res.status}): ${invalidLines(res.body).join('; ')}`);
}

/** waitEstablished waits until the CRD's Established condition is True (its resources are served). */
export async function waitEstablished(client: RawKubeClient, name: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.request('GET', `${CRD_PATH}/${name}`);
    const conditions = ((res.body['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []);
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} is not Established after ${timeoutMs} ms: ${JSON.stringify(conditions)}`);
    await sleep(50);
  }
}

let installed: Promise<void> | undefined;

/** installCrds applies the CRDs of crds/ once per test file and waits until all are Established. */
export function installCrds(client: RawKubeClient): Promise<void> {
  installed ??= (async () => {
    const crds = crdsIn('crds');
    for (const crd of crds) await applyCrd(client, crd, 'strata-realk8s-test');
    for (const crd of crds) await waitEstablished(client, crd.metadata.name);
  })();
  return installed;
}

/** RealCrdServer is the run's real API server with the CRDs of crds/ installed. */
export interface RealCrdServer extends RealApiServer {
  readonly raw: RawKubeClient;
}

/** realCrdServer waits for the run's real API server and installs crds/ on it. */
export async function realCrdServer(): Promise<RealCrdServer> {
  const server = await realApiServer();
  const raw = new RawKubeClient(server.kubeConfig);
  await installCrds(raw);
  return { ...server, raw };
}
