// scripts/test-deps.ts: installs the Debian packages the tests need (scripts/test-deps.txt) when
// their binaries are missing. `npm test` runs it before the type check and vitest, and CI
// (.ci/run) runs `npm test`, so a fresh Debian machine needs nothing installed by hand. When every
// binary is present it only looks them up and exits.
//   node scripts/test-deps.ts                  install what is missing (apt-get as root, else sudo)
//   node scripts/test-deps.ts --check          only say what is missing; exit 1 if anything is
//   node scripts/test-deps.ts --file=<path>    another list (tests of this script)
// A failed installation is reported and the tests still run: those needing a missing program fail
// naming its package, the others are unaffected.
import { spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** TestDep is one line of the list: a Debian package, a binary proving it is installed, and why tests need it. */
export interface TestDep {
  readonly pkg: string;
  readonly binary: string;
  readonly why: string;
}

export const DEFAULT_LIST = new URL('./test-deps.txt', import.meta.url);

// Debian package names: lower case letters, digits, + - . (at least two characters).
const PACKAGE_NAME = /^[a-z0-9][a-z0-9+.-]+$/;

/** parseTestDeps reads the list: `<package> <binary> <why…>` per line, `#` comments; throws naming a bad line. */
export function parseTestDeps(text: string, source = 'test-deps.txt'): TestDep[] {
  const deps: TestDep[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (m === null) throw new Error(`cannot read line ${i + 1} of ${source}: want "<package> <binary> <why it is needed>", got ${JSON.stringify(line)}`);
    const [, pkg, binary, why] = m as unknown as [string, string, string, string];
    if (!PACKAGE_NAME.test(pkg)) throw new Error(`cannot read line ${i + 1} of ${source}: ${JSON.stringify(pkg)} is not a Debian package name`);
    if (deps.some((d) => d.pkg === pkg)) throw new Error(`cannot read line ${i + 1} of ${source}: package ${pkg} is listed twice`);
    deps.push({ pkg, binary, why });
  });
  return deps;
}

// Programs in the sbin directories (collectd, debootstrap) are not on a normal user's PATH.
const ALSO_SEARCHED = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** findBinary returns the path of the executable name (a path, or looked up on PATH and the sbin directories). */
export function findBinary(name: string, path = process.env.PATH ?? ''): string | undefined {
  const candidates = name.includes('/') ? [name] : [...path.split(delimiter).filter((d) => d !== ''), ...ALSO_SEARCHED].map((d) => join(d, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** missingDeps lists the entries whose binary cannot be found. */
export function missingDeps(deps: readonly TestDep[], path?: string): TestDep[] {
  return deps.filter((d) => findBinary(d.binary, path) === undefined);
}

const ATTEMPTS = 3;
const RETRY_DELAY_S = 10;

/**
 * install runs apt-get update and install for the packages, as root or through sudo, three times at
 * most (a mirror can fail for a moment), with apt's output in a log whose tail is shown if all fail.
 * Returns whether the packages are now installed.
 */
function install(missing: readonly TestDep[]): boolean {
  const pkgs = missing.map((d) => d.pkg);
  const root = process.getuid?.() === 0;
  const sudo = root ? [] : ['sudo'];
  const aptInstall = [...sudo, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...pkgs];
  if (findBinary('apt-get') === undefined) {
    say(`cannot install ${pkgs.join(' ')}: there is no apt-get (not Debian?); install the programs above another way`);
    return false;
  }
  if (!root && findBinary('sudo') === undefined) {
    say(`cannot install ${pkgs.join(' ')}: not root and no sudo; run as root: apt-get update && apt-get install ${pkgs.join(' ')}`);
    return false;
  }
  const log = join(tmpdir(), `strata-test-deps-${process.pid}.log`);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const fd = openSync(log, 'w');
    const run = (argv: string[]) => spawnSync(argv[0]!, argv.slice(1), { stdio: ['inherit', fd, fd] }).status === 0;
    const ok = run([...sudo, 'apt-get', 'update', '-qq']) && run(aptInstall);
    closeSync(fd);
    if (ok && missingDeps(missing).length === 0) return true;
    if (attempt === ATTEMPTS) {
      process.stderr.write(readFileSync(log, 'utf8').split('\n').slice(-20).join('\n'));
      say(`could not install ${pkgs.join(' ')} (apt-get output above, full log ${log}); tests that need them will fail`);
      return false;
    }
    say(`installing ${pkgs.join(' ')} failed (attempt ${attempt} of ${ATTEMPTS}); retrying in ${RETRY_DELAY_S} s`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_DELAY_S * 1000);
  }
  return false;
}

function say(line: string): void {
  process.stderr.write(`test-deps: ${line}\n`);
}

/** main returns the exit status: 0 unless --check found something missing or the list is unreadable. */
export function main(argv: readonly string[]): number {
  const fileArg = argv.find((a) => a.startsWith('--file='));
  const file = fileArg === undefined ? DEFAULT_LIST : fileArg.slice('--file='.length);
  let deps: TestDep[];
  try {
    deps = parseTestDeps(readFileSync(file, 'utf8'), String(file));
  } catch (err) {
    say((err as Error).message);
    return 2;
  }
  const missing = missingDeps(deps);
  if (missing.length === 0) return 0;
  for (const d of missing) say(`missing ${d.binary} (Debian package ${d.pkg}): ${d.why}`);
  if (argv.includes('--check')) return 1;
  say(`installing Debian packages: ${missing.map((d) => d.pkg).join(' ')}`);
  if (install(missing)) say(`installed ${missing.map((d) => d.pkg).join(' ')}`);
  return 0;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
