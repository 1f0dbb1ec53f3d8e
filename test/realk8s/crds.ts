// installCrds installs the checked-in CRDs (crds/*.yaml) through an API server endpoint, as
// `kubectl create -f crds/` would, and waits until each is Established. Test files running in
// parallel share one real API server, so a CRD that already exists counts as installed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { load } from 'js-yaml';

const CRDS_DIR = join(import.meta.dirname, '..', '..', 'crds');
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

interface Crd {
  metadata: { name: string };
  spec: { names: { kind: string } };
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

/**
 * installCrds creates every CRD of crds/ through baseUrl (authenticated with token) and returns
 * the CRDs the server refused, by kind, with the server's message. Throws on any other failure
 * or when an accepted CRD is not Established within timeoutMs.
 */
export async function installCrds(baseUrl: string, token: string, timeoutMs = 30_000): Promise<Map<string, string>> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  const refused = new Map<string, string>();
  const accepted: Crd[] = [];
  for (const file of readdirSync(CRDS_DIR).filter((f) => f.endsWith('.yaml')).sort()) {
    const crd = load(readFileSync(join(CRDS_DIR, file), 'utf8')) as Crd;
    const res = await fetch(baseUrl + CRD_PATH, { method: 'POST', headers, body: JSON.stringify(crd) });
    const text = await res.text();
    if (res.status === 201 || res.status === 409) accepted.push(crd);
    else if (res.status === 422) refused.set(crd.spec.names.kind, `crds/${file}: ${(JSON.parse(text) as { message?: string }).message ?? text}`);
    else throw new Error(`cannot create CRD ${crd.metadata.name} from crds/${file}: ${res.status} ${text}`);
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of accepted) {
    for (;;) {
      const res = await fetch(`${baseUrl}${CRD_PATH}/${crd.metadata.name}`, { headers });
      const live = (await res.json()) as Crd;
      const established = live.status?.conditions?.find((c) => c.type === 'Established');
      if (established?.status === 'True') break;
      if (Date.now() > deadline) throw new Error(`CRD ${crd.metadata.name} is not Established after ${timeoutMs} ms: ${JSON.stringify(live.status ?? {})}`);
      await sleep(50);
    }
  }
  return refused;
}
