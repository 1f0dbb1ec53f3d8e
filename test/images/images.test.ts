import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { command } from '../../operator/factory/common/binaries.ts';
import { BACKUPMANAGER_COMMAND } from '../../operator/factory/common/backup.ts';
import { tunedLaunch } from '../../src/lib/process/reexec.ts';
import { TSDB_TUNING } from '../../src/lib/process/tuning.ts';
import { parseDockerfile, stages } from './dockerfile.ts';
import { imageDir, processArgv, renderedContainers, repoScript } from './rendered.ts';
import type { Instruction, Stage } from './dockerfile.ts';

// Lint of images/*/Dockerfile: multi-stage on a pinned Node 24 base given as ARG BASE_IMAGE,
// stage references that exist, a non-root numeric USER, exec-form ENTRYPOINT pointing at a
// copied source file, and no HEALTHCHECK (Kubernetes probes /health).
const ROOT = join(import.meta.dirname, '..', '..');
const IMAGES = ['tsdb', 'gateway', 'authproxy', 'backupmanager', 'operator'] as const;
const ENTRYPOINTS: Record<(typeof IMAGES)[number], string[]> = {
  tsdb: command('tsdb'),
  gateway: command('gateway'),
  authproxy: command('authproxy'),
  backupmanager: [...BACKUPMANAGER_COMMAND],
  operator: command('operator'),
};

function load(image: string) {
  const parsed = stages(parseDockerfile(readFileSync(join(ROOT, 'images', image, 'Dockerfile'), 'utf8')));
  return { ...parsed, final: parsed.stages[parsed.stages.length - 1]! };
}
const all = (s: Stage, keyword: string): Instruction[] => s.instructions.filter((i) => i.keyword === keyword);

describe.each(IMAGES)('images/%s/Dockerfile', (image) => {
  it('is multi-stage on ARG BASE_IMAGE, pinned to an exact Node 24 release', () => {
    const { globalArgs, stages: st } = load(image);
    expect(st.length).toBeGreaterThanOrEqual(2);
    const arg = globalArgs.find((a) => a.args.startsWith('BASE_IMAGE='));
    expect(arg, 'ARG BASE_IMAGE=<image> before the first FROM').toBeDefined();
    const base = arg!.args.slice('BASE_IMAGE='.length);
    expect(base).toMatch(/^node:24\.\d+\.\d+(-[a-z0-9-]+)?(@sha256:[0-9a-f]{64})?$/);
    const names = new Set<string>();
    for (const s of st) {
      expect(s.base === '${BASE_IMAGE}' || names.has(s.base), `FROM ${s.base}: a stage or \${BASE_IMAGE}`).toBe(true);
      if (s.name !== undefined) names.add(s.name);
    }
  });

  it('refers only to earlier stages in COPY --from', () => {
    const { stages: st } = load(image);
    st.forEach((s, i) => {
      const earlier = new Set(st.slice(0, i).map((x) => x.name).filter((n) => n !== undefined));
      for (const c of all(s, 'COPY').filter((c) => c.flags['from'] !== undefined)) expect(earlier.has(c.flags['from']!), `COPY --from=${c.flags['from']} in stage ${i}`).toBe(true);
    });
  });

  it('runs as a numeric non-root user with an exec-form entrypoint and no HEALTHCHECK', () => {
    const { final, stages: st } = load(image);
    const user = all(final, 'USER').at(-1);
    expect(user?.args).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    expect(user!.args.split(':')[0]).toBe('10001');
    const entry = all(final, 'ENTRYPOINT').at(-1);
    expect(entry?.exec, 'ENTRYPOINT must be a JSON array').toEqual(ENTRYPOINTS[image]);
    expect(st.flatMap((s) => all(s, 'HEALTHCHECK'))).toEqual([]);
  });

  it('copies what the entrypoint runs, from paths that exist in the repository', () => {
    const { final } = load(image);
    const copies = all(final, 'COPY').filter((c) => c.flags['from'] === undefined);
    for (const c of copies) {
      const parts = c.args.split(/\s+/);
      for (const src of parts.slice(0, -1)) expect(existsSync(join(ROOT, src)), `COPY source ${src}`).toBe(true);
    }
    const script = ENTRYPOINTS[image][1]!.replace(/^\/app\//, '');
    expect(existsSync(join(ROOT, script)), `ENTRYPOINT script ${script} exists in the repository`).toBe(true);
    expect(copiedFrom(final).some((d) => script === d || script.startsWith(`${d}/`)), `${script} is a COPY destination or under one`).toBe(true);
  });
});

// COPY destinations of the final stage relative to WORKDIR /app ("src", "operator", "src/lib").
function copiedFrom(final: Stage): string[] {
  return all(final, 'COPY').filter((c) => c.flags['from'] === undefined).map((c) => c.args.split(/\s+/).at(-1)!.replace(/^\.\//, '').replace(/\/$/, ''));
}

describe('images/tsdb/Dockerfile', () => {
  it('starts the tsdb binaries as launched: their tuning, and a compile cache filled at build by each binary', () => {
    const { final } = load('tsdb');
    const envs = all(final, 'ENV');
    const env = Object.fromEntries(envs.flatMap((i) => [...i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/^"(.*)"$/, '$1')])));
    const launch = tunedLaunch(TSDB_TUNING, env['NODE_COMPILE_CACHE']);
    expect(env['NODE_COMPILE_CACHE']).toMatch(/^\/app\//);
    expect(env).toMatchObject({ ...launch.env, NODE_OPTIONS: launch.nodeFlags.join(' ') });
    const fill = all(final, 'RUN').find((r) => r.args.includes('STRATA_FLAGS_CHECK=1'));
    expect(fill, 'a RUN that fills the compile cache with a flags check of each binary').toBeDefined();
    expect(final.instructions.indexOf(fill!)).toBeGreaterThan(final.instructions.indexOf(envs.find((i) => i.args.includes('NODE_COMPILE_CACHE='))!));
    for (const b of ['tsdb', 'tsdb-storage', 'tsdb-insert', 'tsdb-select']) expect(fill!.args).toContain(`node src/cmd/${b}.ts`);
  });
});

describe('containers the operator renders', () => {
  const rendered = renderedContainers();
  it('start a script that exists in the repository and that their image copies', () => {
    const problems: string[] = [];
    for (const rc of rendered) {
      const where = `${rc.source} container "${rc.container.name}"`;
      const argv = processArgv(rc);
      const script = repoScript(argv);
      if (script === undefined) {
        problems.push(`${where} runs ${JSON.stringify(argv)}, not node with a script under /app`);
        continue;
      }
      if (!existsSync(join(ROOT, script))) problems.push(`${where} runs ${script}, which does not exist in the repository`);
      const dir = imageDir(rc.container.image!);
      if (!copiedFrom(load(dir).final).some((d) => script === d || script.startsWith(`${d}/`))) problems.push(`${where} runs ${script}, which images/${dir}/Dockerfile does not copy`);
    }
    expect(rendered.length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });
});

describe('image set', () => {
  it('has a Dockerfile for every shipped binary and nothing else', () => {
    expect(readdirSync(join(ROOT, 'images')).filter((d) => statSync(join(ROOT, 'images', d)).isDirectory()).sort()).toEqual([...IMAGES].sort());
  });

  it('puts the backupmanager CLI on PATH for kubectl exec', () => {
    const wrapper = readFileSync(join(ROOT, 'images/backupmanager/backupmanager'), 'utf8');
    expect(wrapper).toContain(`exec ${BACKUPMANAGER_COMMAND.join(' ')} "$@"`);
    expect(statSync(join(ROOT, 'images/backupmanager/backupmanager')).mode & 0o111).not.toBe(0);
  });
});
