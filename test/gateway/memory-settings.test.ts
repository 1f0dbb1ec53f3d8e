// The gateway binary's memory settings (src/cmd/gateway.ts, docs/DECISIONS.md "Memory of the
// gateway process"): it re-executes itself once, keeping its PID, with a small young generation,
// no allocation-site pretenuring, main-thread GC and the tsdb malloc settings, unless opted out or given a semi-space size.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startProcess } from '../e2e/process-harness.ts';
import { call } from '../tsdb/client.ts';
import { killAll, track } from '../tsdb/harness.ts';
import { GATEWAY_BINARY } from './harness.ts';

afterEach(killAll);

/** started runs the gateway with env and returns its command line and environment as /proc shows them. */
async function started(env: Record<string, string>): Promise<{ argv: string[]; env: string[] }> {
  const proc = track(startProcess(GATEWAY_BINARY, ['-eula', '-httpListenAddr=127.0.0.1:0', '-read.url=http://127.0.0.1:1'], env));
  const m = await proc.waitForOutput(/gateway listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  expect((await call('GET', `${m[1]!}/health`)).status).toBe(200);
  // Read through the PID the test started: the re-executed process must still have it.
  const pid = proc.child.pid!;
  return { argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'), env: readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0') };
}

describe('gateway memory settings', () => {
  it('re-executes itself under the same PID with a 4 MiB semi-space, no pretenuring, main-thread GC and the malloc settings', async () => {
    const p = await started({});
    expect(p.argv).toEqual(expect.arrayContaining(['--max-semi-space-size=4', '--no-allocation-site-pretenuring', '--single-threaded-gc', '-read.url=http://127.0.0.1:1']));
    expect(p.env).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_MMAP_THRESHOLD_=65536', 'MALLOC_TRIM_THRESHOLD_=131072']));
  }, 60_000);

  it('runs as started with STRATA_GATEWAY_NO_REEXEC=1', async () => {
    const p = await started({ STRATA_GATEWAY_NO_REEXEC: '1' });
    expect(p.argv).not.toContain('--max-semi-space-size=4');
    expect(p.argv).not.toContain('--single-threaded-gc');
    expect(p.argv).not.toContain('--no-allocation-site-pretenuring');
  }, 60_000);

  it('adds no V8 flags when a semi-space size is given in NODE_OPTIONS', async () => {
    const p = await started({ NODE_OPTIONS: '--max-semi-space-size=8' });
    expect(p.argv).not.toContain('--max-semi-space-size=4');
    expect(p.argv).not.toContain('--single-threaded-gc');
    expect(p.env).toContain('NODE_OPTIONS=--max-semi-space-size=8');
  }, 60_000);
});
