import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** BuildInfo identifies the running code: the package version and the git commit it came from. */
export interface BuildInfo {
  readonly version: string;
  readonly gitSha: string;
}

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * readBuildInfo reads the version from package.json and the commit from STRATA_GIT_SHA (set by
 * image builds) or from the checkout's .git directory; "unknown" when neither exists.
 */
export function readBuildInfo(env: Readonly<Record<string, string | undefined>> = process.env): BuildInfo {
  return { version: readVersion(), gitSha: env.STRATA_GIT_SHA ?? readGitSha(join(repoRoot, '.git')) ?? 'unknown' };
}

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** readGitSha resolves HEAD in a .git directory without running git; undefined when it cannot. */
export function readGitSha(gitDir: string): string | undefined {
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head.slice(0, 12);
    const ref = head.slice(5);
    try {
      return readFileSync(join(gitDir, ref), 'utf8').trim().slice(0, 12);
    } catch {
      const packed = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
      return line?.slice(0, 12);
    }
  } catch {
    return undefined;
  }
}

/** versionLine is what -version prints: `<binary> <version> (<git sha>)`. */
export function versionLine(binary: string, info: BuildInfo): string {
  return `${binary} ${info.version} (${info.gitSha})`;
}
