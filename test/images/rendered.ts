// Every container the operator puts into a cluster, and the process each one starts: the
// builders run over the fixtures of operator/factory/testdata and the examples of docs/, and the
// Helm chart renders the operator's own Deployment (and its example stack, built the same way).
// Tests that check images and flags iterate over this list, so a container the operator starts
// rendering is checked without anyone adding it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { buildResource, FIXTURE_DIR, fixtureFiles, strataExamples } from '../../operator/factory/fixtures.test-helpers.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { helm } from '../helm/helm.ts';
import { parseDockerfile, stages } from './dockerfile.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
/** APP_ROOT is where the Dockerfiles copy the repository (WORKDIR /app). */
const APP_ROOT = '/app/';
const CHART = join(ROOT, 'charts', 'strata-operator');
const CHART_VALUES = join(ROOT, 'test', 'helm', 'values');

/** RenderedContainer is one container of a rendered Pod template. */
export interface RenderedContainer {
  /** source names the input and the workload: "docs/operator.md StatefulSet/tsdb-single-main". */
  readonly source: string;
  readonly container: IContainer;
  readonly init: boolean;
  /** podName stands in for metadata.name where env refers to it (the kubelet's fieldRef). */
  readonly podName: string;
  readonly namespace: string;
}

interface Sourced {
  readonly source: string;
  readonly objects: readonly KubeObject[];
}

function chartObjects(): Sourced[] {
  const out: Sourced[] = [];
  for (const file of readdirSync(CHART_VALUES).filter((f) => f.endsWith('.yaml')).sort()) {
    const rendered = (loadAll(helm(['template', 'rel', CHART, '--namespace', 'strata-system', '-f', join(CHART_VALUES, file)])) as (KubeObject | null)[]).filter((o): o is KubeObject => o !== null);
    const source = `charts/strata-operator with test/helm/values/${file}`;
    out.push({ source, objects: rendered.filter((o) => o.apiVersion !== 'strata.dev/v1beta1') });
    for (const cr of rendered.filter((o) => o.apiVersion === 'strata.dev/v1beta1' && o.kind !== 'AuthProxyUser')) out.push({ source, objects: buildResource(cr) });
  }
  return out;
}

/** renderedObjects builds every example input: builder fixtures, docs examples and the Helm chart. */
export function renderedObjects(): Sourced[] {
  const fixtures = fixtureFiles().flatMap((f) =>
    (loadAll(readFileSync(join(FIXTURE_DIR, f), 'utf8')) as KubeObject[]).map((o) => ({ source: `operator/factory/testdata/${f}`, objects: buildResource(o) })),
  );
  const docs = strataExamples(readFileSync(join(ROOT, 'docs', 'operator.md'), 'utf8'))
    .filter((o) => o.kind !== 'AuthProxyUser')
    .map((o) => ({ source: 'docs/operator.md', objects: buildResource(o) }));
  return [...fixtures, ...docs, ...chartObjects()];
}

/** renderedContainers lists the containers and init containers of every rendered Pod template. */
export function renderedContainers(): RenderedContainer[] {
  const out: RenderedContainer[] = [];
  for (const { source, objects } of renderedObjects()) {
    for (const o of objects) {
      const pod = (o['spec'] as { template?: { spec?: IPodSpec } } | undefined)?.template?.spec;
      if (pod === undefined) continue;
      const where = { source: `${source} ${o.kind}/${o.metadata.name}`, podName: `${o.metadata.name}-0`, namespace: o.metadata.namespace ?? 'default' };
      for (const c of pod.initContainers ?? []) out.push({ ...where, container: c, init: true });
      for (const c of pod.containers) out.push({ ...where, container: c, init: false });
    }
  }
  return out;
}

/** IMAGE_DIRS are the images built from the repository: images/<dir>/Dockerfile. */
export const IMAGE_DIRS = readdirSync(join(ROOT, 'images')).filter((d) => existsSync(join(ROOT, 'images', d, 'Dockerfile'))).sort();

/**
 * imageDir names the images/ directory that builds an image reference: its repository's last
 * path segment ("registry.example.com/strata/tsdb:0.2.0" is images/tsdb). Throws when none does.
 */
export function imageDir(image: string): string {
  const repository = image.replace(/@sha256:[0-9a-f]+$/, '').replace(/:[^/:]+$/, '');
  const dir = repository.split('/').at(-1)!;
  if (!IMAGE_DIRS.includes(dir)) throw new Error(`no images/${dir}/Dockerfile builds image "${image}" (images: ${IMAGE_DIRS.join(', ')})`);
  return dir;
}

/** ImageProcess is what an image starts by default: its final stage's exec-form ENTRYPOINT and CMD. */
export interface ImageProcess {
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
}

/** imageProcess reads ENTRYPOINT and CMD of images/<dir>/Dockerfile; both must be exec form. */
export function imageProcess(dir: string): ImageProcess {
  const parsed = stages(parseDockerfile(readFileSync(join(ROOT, 'images', dir, 'Dockerfile'), 'utf8')));
  const final = parsed.stages.at(-1)!.instructions;
  const last = (keyword: string): readonly string[] => {
    const ins = final.filter((i) => i.keyword === keyword).at(-1);
    if (ins === undefined) return [];
    if (ins.exec === undefined) throw new Error(`images/${dir}/Dockerfile: ${keyword} must be exec form (a JSON array), not "${ins.args}"`);
    return ins.exec;
  };
  return { entrypoint: last('ENTRYPOINT'), cmd: last('CMD') };
}

/**
 * expandEnv replaces $(VAR) references by the container's env values, as the kubelet does for
 * command and args ($$ escapes a dollar; unknown names stay as they are). fieldRef values are
 * taken from the rendered Pod: metadata.name and metadata.namespace.
 */
export function expandEnv(text: string, rc: RenderedContainer): string {
  const env = new Map<string, string>();
  for (const e of rc.container.env ?? []) {
    if (e.value !== undefined) env.set(e.name, e.value);
    const field = e.valueFrom?.fieldRef?.fieldPath;
    if (field === 'metadata.name') env.set(e.name, rc.podName);
    if (field === 'metadata.namespace') env.set(e.name, rc.namespace);
  }
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string | undefined) => (name === undefined ? '$' : (env.get(name) ?? m)));
}

/**
 * processArgv is what the container runs, by Kubernetes' rules: command replaces the image's
 * ENTRYPOINT, and args its CMD (a command without args drops CMD); $(VAR)s are expanded.
 */
export function processArgv(rc: RenderedContainer): string[] {
  const image = imageProcess(imageDir(rc.container.image!));
  const c = rc.container;
  const command = c.command ?? image.entrypoint;
  const args = c.args ?? (c.command !== undefined ? [] : image.cmd);
  return [...command, ...args].map((a) => expandEnv(a, rc));
}

/**
 * repoScript maps a `node /app/<path>` process to the repository file it runs ("src/cmd/tsdb.ts");
 * undefined when argv does not start a script under /app with node.
 */
export function repoScript(argv: readonly string[]): string | undefined {
  if (argv[0] !== 'node' || argv[1] === undefined || !argv[1].startsWith(APP_ROOT)) return undefined;
  return argv[1].slice(APP_ROOT.length);
}

/** healthPort is the port of the container's readiness probe when it is an HTTP GET of /health. */
export function healthPort(c: IContainer): number | undefined {
  const get = c.readinessProbe?.httpGet;
  if (get === undefined || get.path !== '/health') return undefined;
  if (typeof get.port === 'number') return get.port;
  const byName = c.ports?.find((p) => p.name === get.port)?.containerPort;
  return byName ?? (/^\d+$/.test(get.port) ? Number(get.port) : undefined);
}
