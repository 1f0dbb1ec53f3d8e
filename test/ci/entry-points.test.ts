// One way to start every binary: `node src/cmd/<binary>.ts`, for a person (README), the images
// (their ENTRYPOINT) and the operator's rendered containers alike.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { tunedLaunch } from '../../src/lib/process/reexec.ts';
import { TSDB_TUNING } from '../../src/lib/process/tuning.ts';
import { repoRoot } from '../e2e/process-harness.ts';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

it('starts every built binary of the README table from src/cmd/<binary>.ts', () => {
  const rows = read('README.md').split('\n').filter((l) => /^\| `[a-z-]+`/.test(l));
  const built = rows.filter((l) => !l.includes('not built yet')).map((l) => /^\| `([a-z-]+)`/.exec(l)![1]!);
  expect(built).toEqual(expect.arrayContaining(['tsdb', 'authproxy', 'backupmanager', 'operator']));
  for (const b of built) expect(existsSync(join(repoRoot, 'src/cmd', `${b}.ts`)), `src/cmd/${b}.ts`).toBe(true);
  expect(read('README.md')).toMatch(/`npx node src\/cmd\/<binary>\.ts`/);
});

it('has every image start its binary from /app/src/cmd', () => {
  const images = readdirSync(join(repoRoot, 'images'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  expect(images).toContain('operator');
  for (const image of images) {
    const entry = /^ENTRYPOINT (.+)$/m.exec(read(`images/${image}/Dockerfile`))?.[1];
    expect(JSON.parse(entry ?? 'null'), image).toEqual(['node', `/app/src/cmd/${image}.ts`]);
  }
});

it('has npm start run tsdb as launched: its tuning and the compile cache given, so it does not re-execute', () => {
  const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['start'];
  const launch = tunedLaunch(TSDB_TUNING, '${TMPDIR:-/tmp}/node-compile-cache');
  expect(start).toBe([...Object.entries(launch.env).map(([k, v]) => `${k}=${v}`), 'node', ...launch.nodeFlags, 'src/cmd/tsdb.ts'].join(' '));
});
