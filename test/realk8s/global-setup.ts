// Vitest global setup: starts one real Kubernetes 1.36 CRD API server (../shared/k8s/start.sh,
// apiextensions-apiserver + etcd) per test run, in the background, so that runs which never ask
// for it pay only its idle CPU. Tests reach it through realApiServer() in ./apiserver.ts, which
// waits for start.sh to finish. The server is stopped when the run ends.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { runStopScript, START_SCRIPT, STATUS_FILE } from './scripts.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** realK8sWorkdir is the start.sh work directory of this run's real CRD API server. */
    realK8sWorkdir: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const workdir = mkdtempSync(join(tmpdir(), 'strata-realk8s-'));
  project.provide('realK8sWorkdir', workdir);
  const child = spawn('bash', [START_SCRIPT, workdir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  child.stderr.on('data', (b: Buffer) => { out += b.toString(); });
  const started = new Promise<void>((resolve) => {
    const finish = (status: { ok: boolean; detail: string }) => {
      writeFileSync(join(workdir, STATUS_FILE), JSON.stringify(status));
      resolve();
    };
    child.on('error', (err) => finish({ ok: false, detail: `cannot run ${START_SCRIPT}: ${err.message}` }));
    child.on('exit', (code) => finish(code === 0
      ? { ok: true, detail: out.trim().split('\n')[0] ?? '' }
      : { ok: false, detail: `${START_SCRIPT} exited with status ${code}: ${out.trim()}` }));
  });
  return async () => {
    await started;
    await runStopScript(workdir);
    rmSync(workdir, { recursive: true, force: true });
  };
}
