// The tsdb binary's process settings (src/lib/process/tuning.ts, docs/DECISIONS.md "Memory of the
// tsdb process" and "Startup of the tsdb binaries"): started bare it re-executes itself once, under
// the same PID, into its Node flags, malloc settings and compile cache; started as launchers start
// it (tunedLaunch) it has them from the start and keeps the command line it was given.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tunedLaunch } from '../../src/lib/process/reexec.ts';
import { TSDB_TUNING } from '../../src/lib/process/tuning.ts';
import { repoRoot, startCommand } from '../e2e/process-harness.ts';
import { call } from './client.ts';
import { killAll, makeTempDir, removeTempDirs, TSDB_BINARY, track } from './harness.ts';

// Whatever tunes Node in the test runner's environment is left out, so "bare" is a plain start.
const TUNING_VARS = ['NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE', TSDB_TUNING.optOutVar, ...Object.keys(TSDB_TUNING.env ?? {})];
const saved = new Map(TUNING_VARS.map((k) => [k, process.env[k]]));
beforeAll(() => {
  for (const k of TUNING_VARS) delete process.env[k];
});
afterAll(async () => {
  for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
  await removeTempDirs();
});
afterEach(killAll);

/** started runs tsdb with Node flags and env, and returns its command line and environment as /proc shows them. */
async function started(nodeFlags: readonly string[], env: Record<string, string>): Promise<{ argv: string[]; env: string[] }> {
  const data = await makeTempDir('memory-settings');
  const proc = track(startCommand(process.execPath, [...nodeFlags, TSDB_BINARY, '-httpListenAddr=127.0.0.1:0', `-storageDataPath=${data}`], env));
  const m = await proc.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  expect((await call('GET', `${m[1]!}/api/v1/query?query=1`)).status).toBe(200);
  const pid = proc.child.pid!;
  const seen = { argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1), env: readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0') };
  proc.kill();
  await proc.exited;
  return seen;
}

const mallocSettings = Object.entries(TSDB_TUNING.env ?? {}).map(([k, v]) => `${k}=${v}`);

describe('tsdb process settings', () => {
  it('re-executes a bare start under the same PID with a 4 MiB semi-space, gc(), the malloc settings and the compile cache', async () => {
    const p = await started([], {});
    // Re-executed with the script as Node resolved it.
    expect(p.argv.slice(0, 4)).toEqual([process.execPath, '--max-semi-space-size=4', '--expose-gc', join(repoRoot, TSDB_BINARY)]);
    expect(p.env).toEqual(expect.arrayContaining(mallocSettings));
    expect(p.env.some((e) => e.startsWith('NODE_COMPILE_CACHE='))).toBe(true);
  }, 60_000);

  it('runs as started with STRATA_TSDB_NO_REEXEC=1', async () => {
    const p = await started([], { STRATA_TSDB_NO_REEXEC: '1' });
    expect(p.argv.slice(0, 2)).toEqual([process.execPath, TSDB_BINARY]);
    expect(p.env.filter((e) => mallocSettings.includes(e))).toEqual([]);
  }, 60_000);

  it('starts as launched (tunedLaunch) with the command line given, filling the compile cache given', async () => {
    const cache = await makeTempDir('compile-cache');
    const launch = tunedLaunch(TSDB_TUNING, cache);
    for (let i = 0; i < 2; i++) {
      const p = await started(launch.nodeFlags, launch.env);
      expect(p.argv.slice(0, 2 + launch.nodeFlags.length)).toEqual([process.execPath, ...launch.nodeFlags, TSDB_BINARY]);
      expect(p.env).toEqual(expect.arrayContaining([...mallocSettings, `NODE_COMPILE_CACHE=${cache}`]));
    }
    // Node keeps one subdirectory per version and flag set, holding the compiled modules.
    const entries = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(entries.length).toBeGreaterThan(200);
    expect(entries.every((e) => join(e.parentPath, e.name).startsWith(cache))).toBe(true);
  }, 60_000);
});
