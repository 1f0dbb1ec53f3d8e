// The operator started where there is no Kubernetes config at all (no -kubeconfig, no KUBECONFIG,
// an empty home, not a Pod) must say so and exit non-zero, not retry a made-up http://localhost:8080
// cluster every 2 s ("HTTP protocol is not allowed when skipTLSVerify is not set").
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../e2e/process-harness.ts';

it('exits with status 2 and says that no kubeconfig or in-cluster config was found', async () => {
  const home = mkdtempSync(join(tmpdir(), 'operator-home-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT'].includes(k)) env[k] = v;
  }
  env['HOME'] = home;
  const child = spawn(process.execPath, ['src/cmd/operator.ts', '-httpListenAddr=127.0.0.1:0'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  expect(code, out).toBe(2);
  // On a machine that is a Pod (a service account token exists) the in-cluster branch says why instead.
  expect(out).toMatch(new RegExp(`cannot start operator.*(cannot find a Kubernetes config: -kubeconfig is not set, KUBECONFIG is empty, there is no ${home}/\\.kube/config, and this is not a Pod|cannot use the in-cluster Kubernetes config)`, 's'));
  expect(out).not.toMatch(/skipTLSVerify/);
});
