// Flags of the operator binary, turned into OperatorOptions and election settings.
import { arrayFlag, boolFlag, durationFlag, intFlag, stringFlag } from '../../src/lib/flags/index.ts';
import { readBuildInfo } from '../../src/lib/buildinfo/index.ts';
import type { OperatorOptions } from '../controller/context.ts';

const version = readBuildInfo().version;

const kubeconfig = stringFlag('kubeconfig', '', 'Path to a kubeconfig file; empty uses $KUBECONFIG, ~/.kube/config, then the in-cluster service account');
const watchNamespaces = arrayFlag('watchNamespaces', 'Namespaces to watch and manage; empty watches all namespaces (needs cluster-wide RBAC, see the Helm chart)');
const workers = intFlag('workers', 4, 'Resources reconciled concurrently');
const resync = durationFlag('resyncPeriod', '10m', 'How often every resource is reconciled even without changes');
const rolloutPoll = durationFlag('rollout.pollInterval', '5s', 'How soon a resource in the middle of a rollout is looked at again (changes to its Pods also wake it)');
const progressDeadline = durationFlag('rollout.progressDeadline', '15m', 'A rollout without progress for this long marks the resource Degraded');
const backoffBase = durationFlag('backoff.base', '500ms', 'First retry delay after a failed reconcile; doubles per failure');
const backoffMax = durationFlag('backoff.max', '5m', 'Longest retry delay after failed reconciles');
const watchTimeout = durationFlag('watchTimeout', '5m', 'Server-side timeout of each watch request; watches resume from the last seen version');
const leaderElect = boolFlag('leaderElect', true, 'Run only while holding the leader Lease, so several replicas can run for availability');
const leaseNamespace = stringFlag('leaderElection.namespace', '', 'Namespace of the leader Lease; empty uses $POD_NAMESPACE, then the kubeconfig namespace, then "default"');
const leaseName = stringFlag('leaderElection.id', 'strata-operator', 'Name of the leader Lease');
const leaseDuration = durationFlag('leaderElection.leaseDuration', '15s', 'How long a Lease not renewed keeps others from taking over');
const renewDeadline = durationFlag('leaderElection.renewDeadline', '10s', 'How long the leader keeps trying to renew before it steps down; less than -leaderElection.leaseDuration');
const retryPeriod = durationFlag('leaderElection.retryPeriod', '2s', 'How often candidates try to acquire, and the leader renews, the Lease');
const imageTsdb = stringFlag('image.tsdb', `strata/tsdb:${version}`, 'Default image of new TSDBSingle and TSDBCluster containers (the image holds all four TSDB binaries); existing ones keep their recorded image (status.resolvedImages)');
const imageGateway = stringFlag('image.gateway', `strata/gateway:${version}`, 'Default image of new TSDBGateway containers; existing ones keep their recorded image (status.resolvedImages)');
const imageAuthproxy = stringFlag('image.authproxy', `strata/authproxy:${version}`, 'Default image of new AuthProxy containers; existing ones keep their recorded image (status.resolvedImages)');
const imageBackupmanager = stringFlag('image.backupmanager', `strata/backupmanager:${version}`, 'Default image of new backup sidecars and restore init containers; existing ones keep their recorded image (status.resolvedImages)');

/** operatorOptionsFromFlags reads the parsed flags; throws on inconsistent values. */
export function operatorOptionsFromFlags(): OperatorOptions {
  if (workers.value < 1) throw new Error('-workers must be at least 1');
  const ns = watchNamespaces.value.filter((n) => n !== '');
  return {
    build: { images: { tsdb: imageTsdb.value, gateway: imageGateway.value, authproxy: imageAuthproxy.value, backupmanager: imageBackupmanager.value } },
    fieldManager: 'strata-operator',
    watchNamespaces: ns.length === 0 ? undefined : ns,
    progressDeadlineMs: progressDeadline.value,
    rolloutPollMs: rolloutPoll.value,
    resyncMs: resync.value,
    workers: workers.value,
    backoff: { baseMs: backoffBase.value, maxMs: backoffMax.value },
    watchTimeoutSeconds: Math.max(1, Math.round(watchTimeout.value / 1000)),
  };
}

/** ElectionSettings configure leader election (undefined when disabled). */
export interface ElectionSettings {
  readonly namespace: string;
  readonly name: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** electionFromFlags returns the election settings, or undefined with -leaderElect=false. */
export function electionFromFlags(fallbackNamespace: string): ElectionSettings | undefined {
  if (!leaderElect.value) return undefined;
  if (renewDeadline.value >= leaseDuration.value) throw new Error('-leaderElection.renewDeadline must be shorter than -leaderElection.leaseDuration');
  return {
    namespace: leaseNamespace.value !== '' ? leaseNamespace.value : fallbackNamespace,
    name: leaseName.value,
    leaseDurationMs: leaseDuration.value,
    renewDeadlineMs: renewDeadline.value,
    retryPeriodMs: retryPeriod.value,
  };
}

/** kubeconfigPath is the -kubeconfig flag. */
export const kubeconfigPath = (): string => kubeconfig.value;
