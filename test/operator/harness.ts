// Test harness: a fake API server in this process and real operator processes talking to it.
// In mode 'real-crs' the fake forwards the strata.dev and apiextensions.k8s.io groups to the
// run's real Kubernetes API server (test/realk8s): the operator's custom resources, their
// finalizers and status live there, while the core kinds it manages and its Lease stay in the
// fake. The scenarios read and write custom resources only through Env, which goes through the
// fake's endpoint as the operator does, so one scenario can run in either mode.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError } from '../../operator/k8s/errors.ts';
import { resourcePath, RestKubeClient } from '../../operator/k8s/rest-client.ts';
import { BUILTIN, customType } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { PERMISSIONS } from '../../operator/rbac.ts';
import { FakeApiServer } from '../k8s/server.ts';
import type { FakeApiServerOptions } from '../k8s/server.ts';
import { realCrdServer } from '../realk8s/crds.ts';

const REPO = join(import.meta.dirname, '..', '..');
/** OPERATOR_TOKEN authenticates the operator processes (RBAC applies to it). */
export const OPERATOR_TOKEN = 'operator-token';
/** TEST_TOKEN authenticates the scenarios' own requests (no RBAC: a cluster admin). */
const TEST_TOKEN = 'test-admin-token';
/** TEST_MANAGER is the field manager of the custom resources a scenario applies. */
const TEST_MANAGER = 'strata-test';

/**
 * Mode: 'fake' serves everything from the in-process fake; 'real-crs' serves the custom resources
 * (and their CRDs) from the real API server, through the fake.
 */
export type Mode = 'fake' | 'real-crs';
/**
 * REAL_CRS is the mode list of the scenario files (describe.each): their custom resources live on
 * the real server, whose validation, SSA, finalizers and watches are the ones that matter. A
 * scenario that needs a fault only the fake can inject (compacting the custom resources' history)
 * uses mode 'fake'; adding 'fake' here runs every scenario against the fake alone as well.
 */
export const REAL_CRS: readonly Mode[] = ['real-crs'];

// Test files running in parallel share the real API server, which has no namespace objects or
// cleanup: each file's namespaces carry a suffix of their own.
const FILE_SUFFIX = randomBytes(3).toString('hex');
/** testNamespace is base plus this test file's suffix. */
export function testNamespace(base: string): string {
  return `${base}-${FILE_SUFFIX}`;
}
/** NS is where the scenarios create resources. */
export const NS = testNamespace('metrics');
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

/** EnvOptions configure the fake; mode says where custom resources live (default 'fake'). */
export interface EnvOptions extends Omit<FakeApiServerOptions, 'upstream'> {
  readonly mode?: Mode;
}

/** Env is one cluster (the fake, and in 'real-crs' mode the real server behind it) with helpers. */
export class Env {
  readonly mode: Mode;
  readonly operators: OperatorProcess[] = [];
  readonly #opts: EnvOptions;
  readonly #dir = mkdtempSync(join(tmpdir(), 'strata-op-'));
  #server: FakeApiServer | undefined;
  #client: RestKubeClient | undefined;
  #kubeconfig = '';

  constructor(opts: EnvOptions = {}) {
    this.mode = opts.mode ?? 'fake';
    this.#opts = opts;
  }

  get server(): FakeApiServer {
    if (this.#server === undefined) throw new Error('the test environment is not started');
    return this.#server;
  }

  /** store holds what the fake serves (in 'real-crs' mode: no custom resources). */
  get store() {
    return this.server.store;
  }

  get #crs(): RestKubeClient {
    if (this.#client === undefined) throw new Error('the test environment is not started');
    return this.#client;
  }

  async start(namespaces: readonly string[] = [NS, OPERATOR_NS]): Promise<this> {
    const { mode: _mode, ...opts } = this.#opts;
    // The real server with crds/ installed (a CRD it refuses fails every real-crs scenario, naming it).
    const upstream = this.mode === 'real-crs' ? { upstream: (await realCrdServer()).kubeConfig } : {};
    this.#server = new FakeApiServer({ operatorToken: OPERATOR_TOKEN, rbac: PERMISSIONS, simulation: { readyDelayMs: 30 }, ...opts, ...upstream });
    await this.#server.start();
    this.#kubeconfig = join(this.#dir, 'kubeconfig');
    writeFileSync(this.#kubeconfig, this.#server.kubeconfig(OPERATOR_TOKEN));
    const kc = new KubeConfig();
    kc.loadFromString(this.#server.kubeconfig(TEST_TOKEN));
    this.#client = new RestKubeClient(kc);
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
    await this.#client?.close();
    await this.#server?.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** logs returns every operator's output, and in mode real-crs the fake's watches of the real server (for failure messages). */
  logs(): string {
    const upstream = this.mode === 'real-crs' && this.#server !== undefined ? `\n--- the fake's watches of the real server ---\n${this.#server.upstreamLog().slice(-2000)}` : '';
    return this.operators.map((o, i) => `--- operator ${i} ---\n${o.log()}`).join('\n') + upstream;
  }

  /**
   * apply creates a custom resource or sets its spec and labels to obj's (server-side apply by
   * the test's field manager: what an earlier apply set and obj leaves out is removed).
   */
  async apply(obj: KubeObject): Promise<KubeObject> {
    return this.#crs.apply({ ...obj, metadata: { ...obj.metadata, namespace: obj.metadata.namespace ?? NS } }, { fieldManager: TEST_MANAGER, force: true });
  }

  /**
   * cr reads a custom resource: from the fake's store in mode 'fake' (scenarios poll this, and a
   * read there costs next to nothing), from the real server through the fake otherwise.
   */
  async cr(kind: string, name: string, namespace = NS): Promise<KubeObject | undefined> {
    if (this.mode === 'fake') return this.store.get(customType(kind), { namespace, name });
    return this.#crs.get(customType(kind), { namespace, name });
  }

  /** deleteCr deletes a custom resource (background propagation); false when it was gone. */
  async deleteCr(kind: string, name: string, namespace = NS): Promise<boolean> {
    return this.#crs.delete(customType(kind), { namespace, name });
  }

  /** patchCr merge-patches a custom resource, or its status subresource. */
  async patchCr(kind: string, name: string, patch: unknown, opts: { namespace?: string; subresource?: 'status' } = {}): Promise<KubeObject> {
    const path = resourcePath(customType(kind), opts.namespace ?? NS, name) + (opts.subresource === undefined ? '' : `/${opts.subresource}`);
    const res = await fetch(this.server.url + path, { method: 'PATCH', headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) });
    const body = (await res.json()) as KubeObject & { reason?: string; message?: string };
    if (!res.ok) throw new KubeApiError(res.status, body.reason ?? 'Unknown', `PATCH ${path}: ${body.message ?? res.statusText}`);
    return body;
  }

  async status<T = Record<string, unknown>>(kind: string, name: string, namespace = NS): Promise<T> {
    return ((await this.cr(kind, name, namespace))?.['status'] ?? {}) as T;
  }

  async phase(kind: string, name: string, namespace = NS): Promise<string | undefined> {
    return (await this.status<{ phase?: string }>(kind, name, namespace)).phase;
  }

  /** ready reports phase Ready for the current generation. */
  async ready(kind: string, name: string, namespace = NS): Promise<boolean> {
    const obj = await this.cr(kind, name, namespace);
    const st = (obj?.['status'] ?? {}) as { phase?: string; observedGeneration?: number };
    return st.phase === 'Ready' && st.observedGeneration === obj?.metadata.generation;
  }

  /** allReady reports whether every listed resource is ready. */
  async allReady(resources: readonly { kind: string; name: string; namespace?: string }[]): Promise<boolean> {
    return (await Promise.all(resources.map((r) => this.ready(r.kind, r.name, r.namespace)))).every(Boolean);
  }

  /**
   * waitFor polls until cond holds, failing with the operators' logs after timeoutMs. Polls of
   * the real server (through the fake) are spaced wider, as each costs it a request to etcd.
   */
  async waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    const interval = this.mode === 'fake' ? 20 : 50;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${this.logs().slice(-6000)}`);
      await new Promise((r) => setTimeout(r, interval));
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
