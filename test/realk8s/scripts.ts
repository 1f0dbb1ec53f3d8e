// Starting and stopping the real CRD API server of one work directory with the shared scripts
// (../shared/k8s/README.md). Several test files, in several processes, may ask at once: the first
// to create the lock directory starts it, and every caller waits for the status file.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const SHARED_K8S = join(import.meta.dirname, '..', '..', '..', 'shared', 'k8s');
const START_SCRIPT = join(SHARED_K8S, 'start.sh');
const STOP_SCRIPT = join(SHARED_K8S, 'stop.sh');
const PACKED_BINARY = join(SHARED_K8S, 'apiextensions-apiserver.xz');
const BINARY = 'apiextensions-apiserver';
const STATUS_FILE = 'strata-start-status.json';
const LOCK_DIR = 'strata-start.lock';

interface StartStatus { readonly ok: boolean; readonly detail: string }

/**
 * startedServer starts the server of workdir unless another caller did, and waits (up to
 * timeoutMs) until start.sh has finished. It throws start.sh's own words when the start failed.
 */
export async function startedServer(workdir: string, timeoutMs: number): Promise<void> {
  if (claimStart(workdir)) void runStartScript(workdir);
  const statusPath = join(workdir, STATUS_FILE);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(statusPath)) {
    if (Date.now() > deadline) throw new Error(`the real CRD API server in ${workdir} did not start within ${timeoutMs} ms`);
    await sleep(100);
  }
  const status = JSON.parse(readFileSync(statusPath, 'utf8')) as StartStatus;
  if (!status.ok) throw new Error(`cannot start the real CRD API server: ${status.detail}`);
}

/** stopServer stops the server of workdir if one was started (SIGTERM, SIGKILL after 10 s). */
export async function stopServer(workdir: string): Promise<void> {
  if (!existsSync(join(workdir, 'pids'))) return;
  await promisify(execFile)('bash', [STOP_SCRIPT, workdir]).catch(() => undefined);
}

function claimStart(workdir: string): boolean {
  try {
    mkdirSync(join(workdir, LOCK_DIR));
    return true;
  } catch {
    return false;
  }
}

async function runStartScript(workdir: string): Promise<void> {
  const finish = (status: StartStatus) => writeFileSync(join(workdir, STATUS_FILE), JSON.stringify(status));
  try {
    linkCachedBinary(workdir);
  } catch (err) {
    finish({ ok: false, detail: `cannot prepare ${BINARY}: ${(err as Error).message}` });
    return;
  }
  const child = spawn('bash', [START_SCRIPT, workdir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  child.stderr.on('data', (b: Buffer) => { out += b.toString(); });
  child.on('error', (err) => finish({ ok: false, detail: `cannot run ${START_SCRIPT}: ${err.message}` }));
  child.on('exit', (code) => finish(code === 0
    ? { ok: true, detail: out.trim() }
    : { ok: false, detail: `${START_SCRIPT} exited with status ${code}: ${out.trim()}` }));
}

/**
 * linkCachedBinary puts the unpacked server binary into workdir as a hard link to one unpacked
 * copy per machine (newer than the .xz, so start.sh does not unpack its 77 MB again: that costs
 * ~2 CPU-seconds on every run otherwise).
 */
function linkCachedBinary(workdir: string): void {
  const cacheDir = join(tmpdir(), 'strata-realk8s-bin');
  const cached = join(cacheDir, BINARY);
  if (!existsSync(cached) || statSync(cached).mtimeMs < statSync(PACKED_BINARY).mtimeMs) {
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${cached}.tmp.${process.pid}`;
    const unpacked = spawnSyncChecked('xz', ['-dc', PACKED_BINARY]);
    writeFileSync(tmp, unpacked, { mode: 0o755 });
    renameSync(tmp, cached);
  }
  linkSync(cached, join(workdir, BINARY));
}

function spawnSyncChecked(cmd: string, args: string[]): Buffer {
  const r = spawnSync(cmd, args, { maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with status ${r.status}: ${r.error?.message ?? String(r.stderr)}`);
  return r.stdout;
}
