// Test harness: a fake API server in this process and real operator processes talking to it.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN, CUSTOM } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { PERMISSIONS } from '../../operator/rbac.ts';
import { FakeApiServer } from '../k8s/server.ts';
import type { FakeApiServerOptions } from '../k8s/server.ts';

const REPO = join(import.meta.dirname, '..', '..');
/** OPERATOR_TOKEN authenticates the operator processes (RBAC applies to it). */
export const OPERATOR_TOKEN = 'operator-token';
/** NS is where the scenarios create resources. */
export const NS = 'metrics';
/** OPERATOR_NS holds the leader Lease. */
export const OPERATOR_NS = 'strata-system';

/** FAST_FLAGS shorten every interval so scenarios finish in seconds. */
export const FAST_FLAGS = [
  '-httpListenAddr=127.0.0.1:0',
  '-rollout.pollInterval=50ms',
  '-rollout.progressDeadline=20s',
  '-backoff.base=20ms',
  '-backoff.max=500ms',
  '-resyncPeriod=5s',
  '-watchTimeout=60s',
  '-workers=4',
  `-leaderElection.namespace=${OPERATOR_NS}`,
  '-leaderElection.leaseDuration=2s',
  '-leaderElection.renewDeadline=1500ms',
  '-leaderElection.retryPeriod=200ms',
];

/** IMAGE_FLAGS pin the default images the scenarios expect (leave them out for the operator's own). */
export const IMAGE_FLAGS = [
  '-image.tsdb=strata/tsdb:1.0.0',
  '-image.gateway=strata/gateway:1.0.0',
  '-image.authproxy=strata/authproxy:1.0.0',
  '-image.backupmanager=strata/backupmanager:1.0.0',
];

/** OperatorProcess is one running operator binary. */
export class OperatorProcess {
  readonly #child: ChildProcess;
  readonly output: string[] = [];
  readonly exited: Promise<number | null>;

  constructor(kubeconfig: string, args: readonly string[], imageFlags = true) {
    const flags = [`-kubeconfig=${kubeconfig}`, ...FAST_FLAGS, ...(imageFlags ? IMAGE_FLAGS : []), ...args];
    this.#child = spawn(process.execPath, [join(REPO, 'src', 'cmd', 'operator.ts'), ...flags], { stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO });
    const collect = (b: Buffer) => this.output.push(b.toString());
    this.#child.stdout!.on('data', collect);
    this.#child.stderr!.on('data', collect);
    this.exited = new Promise((resolve) => this.#child.on('exit', (code) => resolve(code)));
  }

  /** stop sends SIGTERM and waits for the exit status. */
  async stop(): Promise<number | null> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM');
    return this.exited;
  }

  /** kill ends the process at once (no lease release), as a crash would. */
  async kill(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
    await this.exited;
  }

  log(): string {
    return this.output.join('');
  }

  /** reconciles reads operator_reconciles_total of a kind from the process's /metrics (0 before it serves). */
  async reconciles(kind: string, outcome: 'success' | 'error' = 'success'): Promise<number> {
    const addr = /metrics on (?:https?:\/\/)?([0-9.]+:[0-9]+)/.exec(this.log())?.[1];
    if (addr === undefined) return 0;
    const text = await (await fetch(`http://${addr}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('operator_reconciles_total{') && l.includes(`kind="${kind}"`) && l.includes(`outcome="${outcome}"`));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  }
}

/** Env is one fake cluster with helpers. */
export class Env {
  readonly server: FakeApiServer;
  readonly operators: OperatorProcess[] = [];
  readonly #dir = mkdtempSync(join(tmpdir(), 'strata-op-'));
  #kubeconfig = '';

  constructor(opts: FakeApiServerOptions = {}) {
    this.server = new FakeApiServer({ operatorToken: OPERATOR_TOKEN, rbac: PERMISSIONS, simulation: { readyDelayMs: 30 }, ...opts });
  }

  get store() {
    return this.server.store;
  }

  async start(namespaces: readonly string[] = [NS, OPERATOR_NS]): Promise<this> {
    await this.server.start();
    this.#kubeconfig = join(this.#dir, 'kubeconfig');
    writeFileSync(this.#kubeconfig, this.server.kubeconfig(OPERATOR_TOKEN));
    for (const name of namespaces) this.store.create(BUILTIN.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } });
    return this;
  }

  /** operator starts another operator process with IMAGE_FLAGS. */
  operator(...args: string[]): OperatorProcess {
    return this.operatorProcess(args, true);
  }

  /** operatorProcess starts an operator; without imageFlags it uses its own (version-derived) default images. */
  operatorProcess(args: readonly string[], imageFlags: boolean): OperatorProcess {
    const p = new OperatorProcess(this.#kubeconfig, args, imageFlags);
    this.operators.push(p);
    return p;
  }

  async stop(): Promise<void> {
    await Promise.all(this.operators.map((o) => o.kill()));
    await this.server.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** logs returns every operator's output (for failure messages). */
  logs(): string {
    return this.operators.map((o, i) => `--- operator ${i} ---\n${o.log()}`).join('\n');
  }

  /** apply creates a custom resource or replaces its spec (and labels). */
  apply(obj: KubeObject): KubeObject {
    const type = CUSTOM[obj.kind]!;
    const key = { namespace: obj.metadata.namespace ?? NS, name: obj.metadata.name! };
    const live = this.store.get(type, key);
    const body = { ...obj, metadata: { ...obj.metadata, namespace: key.namespace } };
    if (live === undefined) return this.store.create(type, body);
    return this.store.replace(type, { ...live, spec: obj['spec'], metadata: { ...live.metadata, labels: obj.metadata.labels ?? {} } } as KubeObject);
  }

  /** get reads a custom resource. */
  cr(kind: string, name: string, namespace = NS): KubeObject | undefined {
    return this.store.get(CUSTOM[kind]!, { namespace, name });
  }

  status<T = Record<string, unknown>>(kind: string, name: string, namespace = NS): T {
    return (this.cr(kind, name, namespace)?.['status'] ?? {}) as T;
  }

  phase(kind: string, name: string, namespace = NS): string | undefined {
    return this.status<{ phase?: string }>(kind, name, namespace).phase;
  }

  /** ready reports phase Ready for the current generation. */
  ready(kind: string, name: string, namespace = NS): boolean {
    const obj = this.cr(kind, name, namespace);
    const st = (obj?.['status'] ?? {}) as { phase?: string; observedGeneration?: number };
    return st.phase === 'Ready' && st.observedGeneration === obj?.metadata.generation;
  }

  /** waitFor polls until cond holds, failing with the operators' logs after timeoutMs. */
  async waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${this.logs().slice(-6000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** cr builds a strata.dev resource. */
export function cr(kind: string, name: string, spec: unknown, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'strata.dev/v1beta1', kind, metadata: { name, namespace: NS, ...(labels === undefined ? {} : { labels }) }, spec };
}

/** podImage returns the first container image of a workload's Pod template. */
export function podImage(workload: KubeObject | undefined, container = 0): string | undefined {
  return (workload?.['spec'] as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined)?.template?.spec?.containers?.[container]?.image;
}

/** secret builds a Secret with string values. */
export function secret(name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: NS }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) };
}
