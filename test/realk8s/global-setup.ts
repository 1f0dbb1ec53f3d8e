// Vitest global setup: gives the run a work directory for one real Kubernetes 1.36 CRD API server
// (../shared/k8s/start.sh: apiextensions-apiserver + etcd). The first test that calls
// realApiServer() (./apiserver.ts) starts it; runs that never ask for it start nothing. The server
// is stopped when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopServer } from './scripts.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** realK8sWorkdir is the start.sh work directory of this run's real CRD API server. */
    realK8sWorkdir: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const workdir = mkdtempSync(join(tmpdir(), 'strata-realk8s-'));
  project.provide('realK8sWorkdir', workdir);
  return async () => {
    await stopServer(workdir);
    rmSync(workdir, { recursive: true, force: true });
  };
}
