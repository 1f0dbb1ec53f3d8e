// realApiServer gives a test the run's real Kubernetes 1.36 CRD API server (one per vitest run,
// see ./global-setup.ts), starting it on first use: its kubeconfig path and a loaded KubeConfig.
// A server that failed to start fails the test with start.sh's own words (for example that etcd
// is not installed).
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { startedServer } from './scripts.ts';

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
  await startedServer(workdir, timeoutMs);
  const kubeconfig = join(workdir, 'kubeconfig');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server === undefined) throw new Error(`kubeconfig ${kubeconfig} names no cluster`);
  return { kubeconfig, server, kubeConfig };
}
