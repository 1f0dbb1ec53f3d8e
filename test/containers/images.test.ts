import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthPort, IMAGE_DIRS, imageDir, imageProcess, processArgv, renderedContainers, repoScript, ROOT } from '../images/rendered.ts';
import type { RenderedContainer } from '../images/rendered.ts';
import { buildImage, probeHealth, stop, WorkingContainer } from './buildah.ts';

// Every image under images/ is built for real (images/build.sh, buildah) and started: its
// ENTRYPOINT and each command the operator renders for it answer -version inside the image (which
// imports every module of the binary, so a file or production dependency missing from the image
// fails here), and each server the operator probes answers /health. The rendered command lines
// themselves go through their binaries' flag parsers in test/images/flags.test.ts.
// Runs in `bash .ci/run` (npm run test:images), not in the default `vitest run`: a cold run
// builds a Debian base image first.

/**
 * STANDALONE says how each server starts alone in its image: the rendered command lines need
 * their Pod's volumes, Secrets and peers, which only a cluster provides. Files are written into the container first. A server
 * the operator renders without an entry here fails the test, so none is left out.
 */
const STANDALONE: Record<string, { readonly args: readonly string[]; readonly files?: Readonly<Record<string, string>> }> = {
  // /data is the image's VOLUME, owned by the image user: this also checks the image's permissions.
  'src/cmd/tsdb.ts': { args: ['-storageDataPath=/data'] },
  'src/cmd/tsdb-storage.ts': { args: ['-storageDataPath=/data'] },
  'src/cmd/tsdb-insert.ts': { args: ['-storageNode=127.0.0.1:8400'] },
  'src/cmd/tsdb-select.ts': { args: ['-storageNode=127.0.0.1:8401'] },
  'src/cmd/gateway.ts': { args: ['-eula', '-read.url=http://127.0.0.1:8428', '-write.url=http://127.0.0.1:8428'] },
  'src/cmd/authproxy.ts': { args: ['-auth.config=/tmp/authproxy.yaml'], files: { '/tmp/authproxy.yaml': 'unauthorized_user:\n  url_prefix: "http://127.0.0.1:8428"\n' } },
  'src/cmd/backupmanager.ts': { args: ['-dst=fs:///tmp/backups', '-storageDataPath=/tmp/data', '-snapshot.createURL=http://127.0.0.1:8428/snapshot/create'] },
  'src/cmd/operator.ts': {
    args: ['-kubeconfig=/tmp/kubeconfig', '-leaderElect=false'],
    // A cluster that is not there: the operator keeps retrying its watches and serves /health meanwhile.
    files: { '/tmp/kubeconfig': 'apiVersion: v1\nkind: Config\nclusters: [{name: none, cluster: {server: "https://127.0.0.1:9"}}]\ncontexts: [{name: none, context: {cluster: none, user: none, namespace: default}}]\ncurrent-context: none\nusers: [{name: none, user: {}}]\n' },
  },
};

const rendered = renderedContainers();
const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();

/** distinct keeps the first item of each key. */
function distinct<T>(items: readonly T[], key: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const t of items) if (!seen.has(key(t))) seen.set(key(t), t);
  return [...seen.values()];
}

describe.each(IMAGE_DIRS)('image %s', (dir) => {
  const mine = rendered.filter((rc) => imageDir(rc.container.image!) === dir);
  let image = '';
  let ctr: WorkingContainer | undefined;
  const container = (): WorkingContainer => {
    if (ctr === undefined) throw new Error(`images/${dir} was not built (see the first test of this image)`);
    return ctr;
  };

  beforeAll(async () => {
    try {
      image = await buildImage(dir);
      ctr = await WorkingContainer.from(image);
    } catch (err) {
      image = String((err as Error).message);
    }
  });
  afterAll(async () => {
    await ctr?.close();
  });

  it('builds from its Dockerfile', () => {
    expect(image, image).toMatch(new RegExp(`^localhost/strata/${dir}:`));
  });

  // The image's ENTRYPOINT, every command rendered for it, and (backupmanager) the CLI on PATH.
  const commands = distinct(
    [[...imageProcess(dir).entrypoint], ...mine.map((rc) => processArgv(rc).slice(0, 2)), ...(dir === 'backupmanager' ? [['backupmanager']] : [])],
    (c) => c.join(' '),
  );
  it.each(commands.map((c) => [c.join(' '), c] as const))('answers -version from %s', async (_name, command) => {
    const r = await container().run([...command, '-version']);
    expect(r.code, r.output).toBe(0);
    expect(r.stdout.trim(), r.output).toMatch(new RegExp(`^\\S+ \\d+\\.\\d+\\.\\d+ \\(${head}\\)$`));
  });

  const servers = distinct(mine.filter((rc) => healthPort(rc.container) !== undefined), (rc) => repoScript(processArgv(rc)) ?? '');
  it.each(servers.map((rc) => [repoScript(processArgv(rc)) ?? '?', rc] as const))('serves /health from %s', async (script, rc: RenderedContainer) => {
    const standalone = STANDALONE[script];
    expect(standalone, `${script} (rendered by ${rc.source}) has no STANDALONE entry saying how it starts alone`).toBeDefined();
    const c = container();
    for (const [path, content] of Object.entries(standalone!.files ?? {})) await c.addFile(path, content);
    const port = healthPort(rc.container)!;
    const p = c.start([...processArgv(rc).slice(0, 2), ...standalone!.args, `-httpListenAddr=:${port}`]);
    try {
      await probeHealth(p, port, 240_000);
    } finally {
      await stop(p);
    }
  });
});
