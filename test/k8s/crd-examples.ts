// The custom resource examples the CRD tests share: the good ones (docs/operator.md and the
// builder fixtures of operator/factory/testdata) and the bad ones with the message each must be
// refused with. The fake API server's validator (test/operator/crd-validation.test.ts) and the
// real Kubernetes API server (test/realk8s) are held to the same table, so the expected messages
// are the real server's words.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'operator', 'factory', 'testdata');

/** Example is a strata.dev custom resource as written in a file. */
export interface Example {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: unknown;
}

/** strataObjects keeps the strata.dev/v1beta1 objects of parsed YAML documents. */
export const strataObjects = (docs: unknown[]): Example[] => docs.filter((o): o is Example => (o as Example | null)?.apiVersion === 'strata.dev/v1beta1');

/** docExamples are the strata.dev objects of the ```yaml blocks of docs/operator.md. */
export function docExamples(): Example[] {
  const markdown = readFileSync(join(ROOT, 'docs', 'operator.md'), 'utf8');
  return strataObjects([...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap((m) => loadAll(m[1]!)));
}

/** fixtureExamples are the builder inputs of operator/factory/testdata (not the goldens), by file. */
export function fixtureExamples(): { file: string; example: Example }[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.yaml') && !f.endsWith('.golden.yaml'))
    .sort()
    .flatMap((file) => strataObjects(loadAll(readFileSync(join(FIXTURES, file), 'utf8'))).map((example) => ({ file, example })));
}

/** BadExample is a spec the API server must refuse, and what its message must say. */
export interface BadExample {
  readonly kind: string;
  readonly spec: unknown;
  readonly want: RegExp;
}

const gw = { eula: true, target: { ref: { kind: 'TSDBCluster', name: 'c' } } };

/** BAD_EXAMPLES are refused on create. */
export const BAD_EXAMPLES: readonly BadExample[] = [
  // Gateway
  { kind: 'TSDBGateway', spec: { target: gw.target }, want: /eula: true/ },
  { kind: 'TSDBGateway', spec: { eula: true, target: { ref: gw.target.ref, readURL: 'http://a', writeURL: 'http://b' } }, want: /either ref or both readURL and writeURL|mutually exclusive/ },
  { kind: 'TSDBGateway', spec: { eula: true, target: { readURL: 'http://a' } }, want: /either ref or both/ },
  { kind: 'TSDBGateway', spec: { ...gw, rateLimit: { enabled: true } }, want: /spec\.rateLimit: Invalid value: rate limiting needs datasourceURL/ },
  { kind: 'TSDBGateway', spec: { eula: true, target: { ref: { kind: 'TSDBSingle', name: 's' } }, rateLimit: { enabled: true, datasourceURL: 'http://d' } }, want: /only in front of a cluster/ },
  { kind: 'TSDBGateway', spec: { ...gw, rateLimit: { limits: [{ type: 'bytes', value: 1 }] } }, want: /spec\.rateLimit\.limits\[0\]\.type: Unsupported value: "bytes": supported values/ },
  { kind: 'TSDBGateway', spec: { ...gw, auth: { publicKeys: [{ secretKeyRef: { name: 'a', key: 'k' }, configMapKeyRef: { name: 'b', key: 'k' } }] } }, want: /exactly one of secretKeyRef/ },
  { kind: 'TSDBGateway', spec: { ...gw, target: { ref: { kind: 'TSDBSingle', name: 's' }, clusterMode: true } }, want: /clusterMode contradicts/ },
  // Cluster
  { kind: 'TSDBCluster', spec: { replicationFactor: 3, storage: { replicas: 2 } }, want: /spec: Invalid value: replicationFactor cannot exceed storage\.replicas/ },
  // storage.replicas defaults to 2: a replication factor of 3 alone is too much.
  { kind: 'TSDBCluster', spec: { replicationFactor: 3 }, want: /replicationFactor cannot exceed storage\.replicas/ },
  { kind: 'TSDBCluster', spec: { storage: { podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 } } }, want: /exactly one of minAvailable and maxUnavailable/ },
  { kind: 'TSDBCluster', spec: { select: { horizontalPodAutoscaler: { minReplicas: 5, maxReplicas: 2, targetCPUUtilizationPercentage: 50 } } }, want: /minReplicas must not exceed/ },
  { kind: 'TSDBCluster', spec: { insert: { horizontalPodAutoscaler: { maxReplicas: 2 } } }, want: /CPU or a memory/ },
  { kind: 'TSDBCluster', spec: { insert: { replicas: -1 } }, want: /spec\.insert\.replicas in body should be greater than or equal to 0/ },
  { kind: 'TSDBCluster', spec: { insert: { service: { type: 'ExternalName' } } }, want: /Unsupported value: "ExternalName": supported values/ },
  { kind: 'TSDBCluster', spec: { storage: { backup: { destination: 'ftp://host/x' } } }, want: /spec\.storage\.backup\.destination in body should match/ },
  // Single
  { kind: 'TSDBSingle', spec: { backup: { concurrency: 2 } }, want: /spec\.backup\.destination: Required value/ },
  { kind: 'TSDBSingle', spec: { backup: { destination: 'gs://b/p', customS3Endpoint: 'http://minio:9000' } }, want: /customS3Endpoint applies only to s3/ },
  { kind: 'TSDBSingle', spec: { backup: { destination: 'fs://relative/path' } }, want: /fs destinations are absolute/ },
  { kind: 'TSDBSingle', spec: { retentionPeriod: '3x' }, want: /spec\.retentionPeriod in body should match/ },
  { kind: 'TSDBSingle', spec: { resources: { limits: { memory: '2GB' } } }, want: /spec\.resources\.limits\.memory in body should match/ },
  { kind: 'TSDBSingle', spec: { extraArgs: { '-retentionPeriod': '1' } }, want: /without leading dashes/ },
  { kind: 'TSDBSingle', spec: { extraEnv: [{ name: 'A', value: '1', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }, want: /mutually exclusive/ },
  { kind: 'TSDBSingle', spec: { extraEnv: [{ name: 'A' }, { name: 'A', value: '2' }] }, want: /spec\.extraEnv\[1\]: Duplicate value: \{"name":"A"\}/ },
  { kind: 'TSDBSingle', spec: { storage: { accessModes: ['ReadWriteOnce', 'ReadWriteOnce'] } }, want: /spec\.storage\.accessModes\[1\]: Duplicate value: "ReadWriteOnce"/ },
  { kind: 'TSDBSingle', spec: { backup: { destination: 's3://b', customS3Endpoint: 'minio' } }, want: /spec\.backup\.customS3Endpoint in body must be of type uri/ },
  // AuthProxy and users
  { kind: 'AuthProxy', spec: { ipFilters: { allowList: ['10.0.0.0/8'] } }, want: /enterprise feature/ },
  { kind: 'AuthProxy', spec: { userSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }, want: /values must be non-empty/ },
  { kind: 'AuthProxy', spec: { unauthorizedUser: { headers: ['X-A: b'] } }, want: /needs targets, urlMap or defaultURL/ },
  { kind: 'AuthProxyUser', spec: { username: 'u', bearerTokenRef: { name: 's', key: 't' }, defaultURL: ['http://x'] }, want: /either username/ },
  { kind: 'AuthProxyUser', spec: { passwordRef: { name: 's', key: 'p' }, bearerTokenRef: { name: 's', key: 't' }, defaultURL: ['http://x'] }, want: /passwordRef needs username/ },
  { kind: 'AuthProxyUser', spec: { username: 'u' }, want: /needs targets, urlMap or defaultURL/ },
  { kind: 'AuthProxyUser', spec: { username: 'u', targets: [{ url: 'http://x', ref: { kind: 'TSDBSingle', name: 's' } }] }, want: /exactly one of url and ref/ },
  { kind: 'AuthProxyUser', spec: { username: 'u', targets: [{ ref: { kind: 'TSDBCluster', name: 'c' } }] }, want: /needs component/ },
  { kind: 'AuthProxyUser', spec: { username: 'u', targets: [{ url: 'http://x', component: 'insert' }] }, want: /component applies only/ },
  { kind: 'AuthProxyUser', spec: { username: 'u', headers: ['no colon'], defaultURL: ['http://x'] }, want: /spec\.headers\[0\] in body should match/ },
  { kind: 'AuthProxyUser', spec: { username: 'u', urlMap: [{ srcPaths: [], urlPrefix: ['http://x'] }] }, want: /spec\.urlMap\[0\]\.srcPaths in body should have at least 1 items/ },
];

/** BadUpdate is a change of a TSDBSingle spec; want undefined means the update is accepted. */
export interface BadUpdate {
  readonly from: unknown;
  readonly to: unknown;
  readonly want: RegExp | undefined;
}

/** TRANSITIONS exercise the transition rules (oldSelf) of TSDBSingle on update. */
export const TRANSITIONS: readonly BadUpdate[] = [
  { from: { storage: { size: '10Gi' } }, to: { storage: { size: '20Gi' } }, want: /spec\.storage: Invalid value: volume settings are immutable/ },
  { from: {}, to: { storage: { size: '10Gi' } }, want: /spec: Invalid value: storage cannot be added or removed after creation/ },
  { from: { storage: { size: '10Gi' } }, to: {}, want: /storage cannot be added or removed/ },
  { from: { storage: { size: '10Gi' } }, to: { storage: { size: '10Gi' }, retentionPeriod: '2' }, want: undefined },
];
