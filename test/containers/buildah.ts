// Builds the repository's images with images/build.sh and runs processes in them with buildah
// (chroot isolation: no daemon and no OCI runtime, which this sandbox's cgroups do not allow).
// Servers run in a network namespace of their own, so each listens on its default ports and
// nothing on the machine is in the way; probes enter that namespace with nsenter.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../images/rendered.ts';
import { startCommand, type StartedProcess } from '../e2e/process-harness.ts';

const run = promisify(execFile);
const ENV = { ...process.env, BUILDAH_ISOLATION: 'chroot' };

/** Result is a finished process: exit code, its stdout, and stdout and stderr together. */
export interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly output: string;
}

async function exec(file: string, args: readonly string[], timeoutMs: number): Promise<Result> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: ROOT, env: ENV, maxBuffer: 64 << 20, timeout: timeoutMs });
    return { code: 0, stdout, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== 'number') throw new Error(`cannot run ${file} ${args.join(' ')}: ${e.message}`, { cause: err });
    return { code: e.code, stdout: e.stdout ?? '', output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** buildImage builds images/<dir> (and the base image first, when missing); returns its name. Throws with the build log. */
export async function buildImage(dir: string): Promise<string> {
  const r = await exec('bash', [join(ROOT, 'images', 'build.sh'), dir], 30 * 60_000);
  const name = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.code !== 0 || !name.startsWith('localhost/')) throw new Error(`images/${dir} does not build (exit ${r.code}):\n${r.output.slice(-6000)}`);
  return name;
}

/** RunOptions: environment variables of the process. */
export interface RunOptions {
  readonly env?: Readonly<Record<string, string>>;
}

/** WorkingContainer is a buildah working container made from an image, removed by close(). */
export class WorkingContainer {
  readonly image: string;
  readonly id: string;

  private constructor(image: string, id: string) {
    this.image = image;
    this.id = id;
  }

  static async from(image: string): Promise<WorkingContainer> {
    const r = await exec('buildah', ['from', '--pull-never', image], 120_000);
    if (r.code !== 0) throw new Error(`cannot make a container of ${image}: ${r.output}`);
    return new WorkingContainer(image, r.stdout.trim().split('\n').at(-1)!);
  }

  /** addFile writes content to path inside the container (mode 0644, owned by root). */
  async addFile(path: string, content: string): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'strata-container-file-'));
    try {
      const local = join(dir, 'file');
      writeFileSync(local, content, { mode: 0o644 });
      const r = await exec('buildah', ['copy', '--quiet', '--chmod', '0644', this.id, local, path], 60_000);
      if (r.code !== 0) throw new Error(`cannot copy ${path} into ${this.image}: ${r.output}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private runArgs(argv: readonly string[], o: RunOptions): string[] {
    const env = Object.entries(o.env ?? {}).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
    return ['run', ...env, this.id, '--', ...argv];
  }

  /** run runs argv to completion as the image's user, in the host's network namespace. */
  run(argv: readonly string[], o: RunOptions = {}, timeoutMs = 180_000): Promise<Result> {
    return exec('buildah', this.runArgs(argv, o), timeoutMs);
  }

  /** start runs argv in a network namespace of its own with loopback up; kill() ends it. */
  start(argv: readonly string[], o: RunOptions = {}): StartedProcess {
    return startCommand('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', 'buildah', ...this.runArgs(argv, o)], { BUILDAH_ISOLATION: 'chroot' });
  }

  async close(): Promise<void> {
    await exec('buildah', ['rm', this.id], 60_000);
  }
}

/**
 * probeHealth GETs http://127.0.0.1:<port>/health inside the network namespace of p until it
 * answers 200; rejects when p exits first or timeoutMs passes, with the last answer and p's output.
 */
export async function probeHealth(p: StartedProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const script = `fetch('http://127.0.0.1:${port}/health', { signal: AbortSignal.timeout(5000) }).then(async (r) => { console.log(r.status, await r.text()); process.exit(r.status === 200 ? 0 : 1); }, (e) => { console.log(e.cause?.code ?? e.message); process.exit(1); })`;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`exited (${p.child.exitCode ?? p.child.signalCode}) before /health answered on port ${port}:\n${p.output().slice(-4000)}`);
    const r = await exec('nsenter', [`--net=/proc/${p.child.pid}/ns/net`, '--', process.execPath, '-e', script], 30_000).catch((err: Error) => ({ code: -1, stdout: '', output: err.message }));
    if (r.code === 0) return;
    last = r.output.trim();
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`/health on port ${port} did not answer 200 within ${timeoutMs} ms (last: ${last}):\n${p.output().slice(-4000)}`);
}

/** stop ends a started process and waits for it, killing it when SIGTERM is not enough. */
export async function stop(p: StartedProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
  await p.exited;
  clearTimeout(timer);
}
