// The one test command of the README installs what the tests need: `npm test` runs
// scripts/test-deps.ts first, the list of Debian packages is scripts/test-deps.txt, and CI calls the
// same command. These checks keep the list, the tests that start real programs, package.json,
// .ci/run and the README in agreement, and the step quick when nothing is missing.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DEFAULT_LIST, findBinary, main, missingDeps, parseTestDeps } from '../../scripts/test-deps.ts';
import { repoRoot, runProcess } from '../e2e/process-harness.ts';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const deps = () => parseTestDeps(readFileSync(DEFAULT_LIST, 'utf8'));

function testFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
}

it('lists every package a test asks for with requireBinary, with the binary that proves it', () => {
  const listed = new Map(deps().map((d) => [d.pkg, d]));
  const asked = new Set<string>();
  for (const f of testFiles('test')) {
    for (const m of read(f).matchAll(/requireBinary\('([^']+)', '([^']+)'\)/g)) asked.add(`${m[2]} ${m[1]}`);
  }
  expect(asked.size).toBeGreaterThanOrEqual(6);
  for (const a of asked) {
    const [pkg] = a.split(' ');
    expect(listed.has(pkg!), `${a}: add "${pkg}" to scripts/test-deps.txt`).toBe(true);
  }
  for (const d of listed.values()) expect(d.why.length, d.pkg).toBeGreaterThan(10);
});

it('reads the list strictly, naming the bad line', () => {
  expect(parseTestDeps('# comment\n\nfoo-bar  foo  why we need it\n')).toEqual([{ pkg: 'foo-bar', binary: 'foo', why: 'why we need it' }]);
  expect(() => parseTestDeps('foo foo\n', 'x.txt')).toThrow('cannot read line 1 of x.txt: want "<package> <binary> <why it is needed>", got "foo foo"');
  expect(() => parseTestDeps('# c\nFoo foo because\n')).toThrow('cannot read line 2 of test-deps.txt: "Foo" is not a Debian package name');
  expect(() => parseTestDeps('foo a b\nfoo c d\n')).toThrow('cannot read line 2 of test-deps.txt: package foo is listed twice');
});

it('finds programs on PATH and in the sbin directories', () => {
  expect(findBinary('sh', '')).toMatch(/^\/(usr\/)?bin\/sh$/);
  expect(findBinary('/bin/sh')).toBe('/bin/sh');
  expect(findBinary('surely-not-a-program-anywhere')).toBeUndefined();
  expect(missingDeps([{ pkg: 'x', binary: 'surely-not-a-program-anywhere', why: 'w' }, { pkg: 'y', binary: 'sh', why: 'w' }]).map((d) => d.pkg)).toEqual(['x']);
});

it('is quick and silent when everything is installed, and names what is missing and why', async () => {
  // The step's own work (reading the list, looking up each binary); Node's start adds ~0.1 s of CPU.
  const started = performance.now();
  expect(main(['--check']), 'npm test installs these before vitest runs').toBe(0);
  expect(performance.now() - started).toBeLessThan(1000);
  expect(await runProcess('scripts/test-deps.ts', [])).toEqual({ code: 0, output: '' });

  const list = join(mkdtempSync(join(tmpdir(), 'test-deps-')), 'deps.txt');
  writeFileSync(list, 'strata-nonexistent  surely-not-a-program-anywhere  the test of the test-deps step\n');
  const missing = await runProcess('scripts/test-deps.ts', ['--check', `--file=${list}`]);
  expect(missing).toEqual({ code: 1, output: 'test-deps: missing surely-not-a-program-anywhere (Debian package strata-nonexistent): the test of the test-deps step\n' });
  writeFileSync(list, 'broken\n');
  expect((await runProcess('scripts/test-deps.ts', [`--file=${list}`])).code).toBe(2);
});

it('installs what is missing with apt-get, through sudo when not root', async () => {
  // Stand-ins for apt-get and sudo first on PATH: apt-get records its arguments and "installs" the
  // missing program into the same directory.
  const dir = mkdtempSync(join(tmpdir(), 'test-deps-apt-'));
  const log = join(dir, 'apt.log');
  writeFileSync(join(dir, 'apt-get'), `#!/bin/sh\necho "$*" >> ${log}\n[ "$1" = install ] && printf '#!/bin/sh\\n' > ${dir}/strata-fake-program && chmod +x ${dir}/strata-fake-program\nexit 0\n`, { mode: 0o755 });
  writeFileSync(join(dir, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  const list = join(dir, 'deps.txt');
  writeFileSync(list, 'strata-fake  strata-fake-program  a program a test needs\nbsdutils script present already\n');
  const r = await runProcess('scripts/test-deps.ts', [`--file=${list}`], { PATH: `${dir}:${process.env.PATH ?? ''}` });
  expect(r).toEqual({
    code: 0,
    output: 'test-deps: missing strata-fake-program (Debian package strata-fake): a program a test needs\n'
      + 'test-deps: installing Debian packages: strata-fake\ntest-deps: installed strata-fake\n',
  });
  expect(readFileSync(log, 'utf8')).toBe('update -qq\ninstall -y -qq --no-install-recommends strata-fake\n');
});

it('is the first step of npm test, which the README names and CI runs', () => {
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  expect(pkg.scripts.test).toBe('node scripts/test-deps.ts && tsc --noEmit && vitest run');
  const ci = read('.ci/run');
  expect(ci).toMatch(/^npm test /m);
  expect(ci).not.toMatch(/apt-get/);
  const firstScreen = read('README.md').split('\n').slice(0, 25).join('\n');
  expect(firstScreen).toMatch(/npm ci && npm test +# installs the Debian packages the tests need/);
  expect(firstScreen).toMatch(/scripts\/test-deps\.txt/);
});
