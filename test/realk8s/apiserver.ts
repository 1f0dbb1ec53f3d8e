// realApiServer gives a test the run's real Kubernetes 1.36 CRD API server (started by
// ./global-setup.ts): its kubeconfig path and a loaded KubeConfig. A server that failed to start
// fails the test with start.sh's own words (for example that etcd is not installed).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { STATUS_FILE } from './scripts.ts';

export interface RealApiServer {
  /** kubeconfig is the path of the admin kubeconfig (system:masters client certificate). */
  readonly kubeconfig: string;
  /** server is the https URL of the API server. */
  readonly server: string;
  readonly kubeConfig: KubeConfig;
}

/** realApiServer waits (up to timeoutMs) for the run's real API server and returns it. */
export async function realApiServer(timeoutMs = 90_000): Promise<RealApiServer> {
  const workdir = inject('realK8sWorkdir');
  const statusPath = join(workdir, STATUS_FILE);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(statusPath)) {
    if (Date.now() > deadline) throw new Error(`the real CRD API server in ${workdir} did not start within ${timeoutMs} ms`);
    await sleep(100);
  }
  const status = JSON.parse(readFileSync(statusPath, 'utf8')) as { ok: boolean; detail: string };
  if (!status.ok) throw new Error(`cannot start the real CRD API server: ${status.detail}`);
  const kubeconfig = join(workdir, 'kubeconfig');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server === undefined) throw new Error(`kubeconfig ${kubeconfig} names no cluster`);
  return { kubeconfig, server, kubeConfig };
}
