// FakeApiServer: an in-process Kubernetes API server over HTTP for running the real operator
// process in tests. It serves discovery, CRUD, server-side apply, status subresources, watches
// with resourceVersion (410 once compacted), eviction, owner-reference GC and simulated
// StatefulSet/Deployment/Pod readiness; validates objects (CRD schemas with CEL rules,
// Kubernetes schemas), enforces an RBAC role for the operator's token, records what the
// operator called, and can inject faults (409s, dropped watches, compaction).
//
// With an upstream (a real API server, test/realk8s), the strata.dev and apiextensions.k8s.io
// groups are forwarded there instead (upstream.ts): the operator still talks to this one endpoint,
// RBAC, the audit and injected faults still apply to its requests, and deleting a custom resource
// there still collects its children here (remote-owners.ts).
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { crdFiles } from '../../operator/api/crd.ts';
import { KubeApiError } from '../../operator/k8s/errors.ts';
import { newStore, simulateControllers } from '../../operator/k8s/fake/index.ts';
import type { Admission, ObjectStore, Simulation, SimulationOptions } from '../../operator/k8s/fake/index.ts';
import { evictPod } from '../../operator/k8s/fake/eviction.ts';
import { hasK8sSchema, validateK8sObject } from '../../operator/k8s/fake/schemas.ts';
import { apiVersionOf, BUILTIN } from '../../operator/k8s/resources.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { CrdValidator } from './crd-validator.ts';
import type { CrdLike } from './crd-validator.ts';
import { discovery } from './discovery.ts';
import { RemoteOwners } from './remote-owners.ts';
import { allowed, parseResourcePath, rbacResource, rbacVerb } from './routes.ts';
import type { ParsedPath, PolicyRule } from './routes.ts';
import { FORWARDED_TYPES, isForwardedPath, Upstream } from './upstream.ts';
export type { PolicyRule } from './routes.ts';

/** Fault is an injected failure for matching requests. */
export interface Fault {
  readonly method?: string;
  readonly pathIncludes?: string;
  readonly status: number;
  readonly reason: string;
  /** count: how many matching requests fail. */
  count: number;
}

/** FakeApiServerOptions configure the fake. */
export interface FakeApiServerOptions {
  /** rbac: rules for requests bearing `operatorToken`; undefined disables authorization. */
  readonly rbac?: readonly PolicyRule[];
  readonly operatorToken?: string;
  readonly simulation?: SimulationOptions;
  /** upstream: the kubeconfig of a real API server that serves the forwarded groups (upstream.ts). */
  readonly upstream?: KubeConfig;
}

/** AUDIT entries are "verb group/resource" strings (group empty for core). */
export type AuditEntry = string;

function crdAdmission(crd: CrdLike): Admission {
  const v = new CrdValidator(crd);
  return ({ object, old }) => {
    const res = v.admit(object, old);
    if (!res.ok) throw new KubeApiError(422, 'Invalid', `${object.kind}.${crd.spec.group} "${object.metadata.name}" is invalid: ${res.errors.join('; ')}`);
    return res.object as KubeObject;
  };
}

const builtinAdmission: Admission = ({ object }) => {
  if (!hasK8sSchema(object)) return object;
  const err = validateK8sObject(object);
  if (err !== undefined) throw new KubeApiError(422, 'Invalid', `${object.kind} "${object.metadata.name}" is invalid: ${err}`);
  return object;
};

function statusBody(err: KubeApiError): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, reason: err.reason, code: err.status };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** FakeApiServer serves one ObjectStore over HTTP on 127.0.0.1. */
export class FakeApiServer {
  readonly store: ObjectStore;
  readonly simulation: Simulation;
  readonly audit = new Set<AuditEntry>();
  /** scopes records "verb resource namespace" (namespace "*" for cluster-wide) of the operator's reads. */
  readonly scopes = new Set<string>();
  readonly faults: Fault[] = [];
  readonly #opts: FakeApiServerOptions;
  readonly #server: Server;
  readonly #open = new Set<ServerResponse>();
  readonly #owners: RemoteOwners | undefined;
  #upstream: Upstream | undefined;
  #url = '';

  constructor(opts: FakeApiServerOptions = {}) {
    this.#opts = opts;
    if (opts.upstream !== undefined) {
      this.#owners = new RemoteOwners(opts.upstream, () => this.store.collectGarbage());
      this.store = newStore({ gcDelayMs: 5, foreignOwner: (ref, ns) => this.#owners?.exists(ref, ns) }, null);
    } else {
      const custom: Record<string, Admission[]> = {};
      for (const [, text] of crdFiles()) {
        const crd = load(text.replace(/^#.*\n/, '')) as CrdLike;
        custom[crd.spec.names.kind] = [crdAdmission(crd)];
      }
      this.store = newStore({ gcDelayMs: 5 }, custom);
    }
    for (const type of this.store.types()) if (type.group !== 'strata.dev') this.store.registerType(type, builtinAdmission);
    this.simulation = simulateControllers(this.store, opts.simulation);
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  /** upstreamLog is what the watches of the real server's custom resources reported (for failure messages). */
  upstreamLog(): string {
    return (this.#owners?.log.entries ?? []).map((e) => `${e.level} ${e.msg} ${JSON.stringify(e.fields, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`).join('\n');
  }

  /** url is the base URL once started. */
  get url(): string {
    return this.#url;
  }

  async start(): Promise<string> {
    if (this.#opts.upstream !== undefined) {
      // A namespace is visible on the real server once this fake holds it.
      this.#upstream = await Upstream.connect(this.#opts.upstream, (name) => this.store.get(BUILTIN.namespace, { namespace: '', name }) !== undefined);
      this.#owners!.start();
    }
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this.#url;
  }

  async stop(): Promise<void> {
    this.simulation.stop();
    for (const r of this.#open) r.end();
    await this.#upstream?.close();
    await this.#owners?.stop();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** kubeconfig returns a kubeconfig document for a client using `token`. */
  kubeconfig(token: string, namespace = 'default'): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: fake\n  cluster:\n    server: ${this.#url}\n    insecure-skip-tls-verify: true`,
      'users:',
      `- name: op\n  user:\n    token: ${token}`,
      'contexts:',
      `- name: fake\n  context:\n    cluster: fake\n    user: op\n    namespace: ${namespace}`,
      'current-context: fake',
      '',
    ].join('\n');
  }

  /** failNext makes the next `count` matching requests of the operator fail with status. */
  failNext(fault: Omit<Fault, 'count'> & { count?: number }): void {
    this.faults.push({ ...fault, count: fault.count ?? 1 });
  }

  /** dropWatches ends every open watch stream (clients must resume). */
  dropWatches(): void {
    this.store.closeWatches();
    this.#upstream?.dropWatches();
  }

  #send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  // fault finds an armed fault for a request; faults hit only the operator's requests (when it
  // has a token), so that a scenario's own reads and writes do not use them up.
  #fault(method: string, path: string, token: string): Fault | undefined {
    if (this.#opts.operatorToken !== undefined && token !== this.#opts.operatorToken) return undefined;
    const f = this.faults.find((x) => x.count > 0 && (x.method === undefined || x.method === method) && (x.pathIncludes === undefined || path.includes(x.pathIncludes)));
    if (f !== undefined) f.count--;
    return f;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const upstream = this.#upstream;
    try {
      const forwarded = upstream !== undefined && isForwardedPath(url.pathname);
      if (!forwarded) {
        // /apis also lists the real server's forwarded groups.
        const extra = upstream !== undefined && url.pathname.replace(/\/+$/, '') === '/apis' ? await upstream.groups() : [];
        const disc = discovery(url.pathname, this.store.types(), extra);
        if (disc !== undefined) return this.#send(res, 200, disc);
      }
      const p = parseResourcePath(url.pathname, forwarded ? FORWARDED_TYPES : this.store.types());
      const body = method === 'GET' ? undefined : await readBody(req);
      // Discovery of a forwarded group (/apis/strata.dev/v1beta1) is open to every client, as upstream.
      if (forwarded && p === undefined) return await upstream.forward({ method, path: url.pathname + url.search, headers: req.headers, body, clusterWide: false }, res);
      if (p === undefined) throw new KubeApiError(404, 'NotFound', `the server could not find the requested resource ${url.pathname}`);
      const watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      this.#authorize(token, p.type.group, rbacResource(p), rbacVerb(method, p, watch));
      if (token === this.#opts.operatorToken && method === 'GET') this.scopes.add(`${rbacVerb(method, p, watch)} ${rbacResource(p)} ${p.type.namespaced ? (p.namespace ?? '*') : '-'}`);
      // Server-side apply that creates the object is also authorized as "create", as upstream does.
      if (method === 'PATCH' && p.name !== undefined && p.subresource === undefined && !(await this.#exists(p, url.pathname))) {
        this.#authorize(token, p.type.group, rbacResource(p), 'create');
      }
      const fault = this.#fault(method, url.pathname, token);
      if (fault !== undefined) throw new KubeApiError(fault.status, fault.reason, `injected failure for ${method} ${url.pathname}`);
      if (forwarded) {
        const fwd = { method, path: url.pathname + url.search, headers: req.headers, body, clusterWide: p.type.namespaced && p.namespace === undefined };
        return await (watch ? upstream.watch(fwd, res) : upstream.forward(fwd, res));
      }
      if (watch) return this.#watch(res, p, url);
      const out = await this.#dispatch(method, p, url, method === 'DELETE' ? undefined : body, req.headers['content-type'] ?? '', method === 'DELETE' ? body : undefined);
      this.#send(res, method === 'POST' ? 201 : 200, out);
    } catch (err) {
      const e = err instanceof KubeApiError ? err : new KubeApiError(500, 'InternalError', (err as Error).message);
      if (res.headersSent) res.destroy(e);
      else this.#send(res, e.status, statusBody(e));
    }
  }

  async #exists(p: ParsedPath, path: string): Promise<boolean> {
    if (this.#upstream !== undefined && isForwardedPath(path)) return this.#upstream.exists(path);
    return this.store.get(p.type, { namespace: p.namespace ?? '', name: p.name ?? '' }) !== undefined;
  }

  #authorize(token: string, group: string, resource: string, verb: string): void {
    if (token === this.#opts.operatorToken) this.audit.add(`${verb} ${group}/${resource}`);
    if (this.#opts.rbac === undefined || token !== this.#opts.operatorToken) return;
    if (!allowed(this.#opts.rbac, group, resource, verb)) {
      throw new KubeApiError(403, 'Forbidden', `${resource}.${group} is forbidden: the operator cannot ${verb} it`);
    }
  }

  async #dispatch(method: string, p: ParsedPath, url: URL, body: string | undefined, contentType: string, deleteBody: string | undefined): Promise<unknown> {
    const key = { namespace: p.namespace ?? '', name: p.name ?? '' };
    const status = p.subresource === 'status' ? ('status' as const) : undefined;
    const parse = () => (contentType.includes('yaml') ? load(body ?? '') : JSON.parse(body ?? 'null')) as KubeObject;
    if (method === 'GET' && p.name === undefined) {
      const l = this.store.list(p.type, { namespace: p.namespace, labelSelector: url.searchParams.get('labelSelector') ?? undefined });
      return { apiVersion: apiVersionOf(p.type), kind: `${p.type.kind}List`, metadata: { resourceVersion: l.resourceVersion }, items: l.items };
    }
    if (method === 'GET') {
      const obj = this.store.get(p.type, key);
      if (obj === undefined) throw new KubeApiError(404, 'NotFound', `${p.type.plural} "${p.name}" not found`);
      return obj;
    }
    if (method === 'POST' && p.subresource === 'eviction' && p.type.kind === 'Pod') {
      evictPod(this.store, key);
      return { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 201 };
    }
    if (method === 'POST') {
      const obj = parse();
      return this.store.create(p.type, { ...obj, metadata: { ...obj.metadata, namespace: p.namespace } } as KubeObject, url.searchParams.get('fieldManager') ?? 'unknown');
    }
    if (method === 'PUT') {
      const obj = parse();
      return this.store.replace(p.type, { ...obj, metadata: { ...obj.metadata, namespace: p.namespace, name: p.name } } as KubeObject, status);
    }
    if (method === 'PATCH' && contentType.startsWith('application/apply-patch')) {
      const cfg = parse();
      const manager = url.searchParams.get('fieldManager');
      if (manager === null || manager === '') throw new KubeApiError(400, 'BadRequest', 'fieldManager is required for apply requests');
      return this.store.apply(p.type, { ...cfg, metadata: { ...cfg.metadata, namespace: p.namespace } } as KubeObject, { manager, force: url.searchParams.get('force') === 'true', ...(status === undefined ? {} : { subresource: status }) });
    }
    if (method === 'PATCH') return this.store.patch(p.type, key, JSON.parse(body ?? '{}'), status);
    if (method === 'DELETE') {
      const opts = deleteBody !== undefined && deleteBody !== '' ? (JSON.parse(deleteBody) as { propagationPolicy?: string; preconditions?: { uid?: string } }) : {};
      const existed = this.store.delete(p.type, key, { uid: opts.preconditions?.uid, propagationPolicy: opts.propagationPolicy ?? url.searchParams.get('propagationPolicy') ?? undefined });
      if (!existed) throw new KubeApiError(404, 'NotFound', `${p.type.plural} "${p.name}" not found`);
      return { kind: 'Status', apiVersion: 'v1', status: 'Success' };
    }
    throw new KubeApiError(405, 'MethodNotAllowed', `${method} is not supported`);
  }

  #watch(res: ServerResponse, p: ParsedPath, url: URL): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    this.#open.add(res);
    let stop: () => void = () => {};
    const end = () => {
      stop();
      this.#open.delete(res);
      if (!res.writableEnded) res.end();
    };
    res.on('close', end);
    const timeout = Number(url.searchParams.get('timeoutSeconds') ?? '0');
    if (timeout > 0) setTimeout(end, timeout * 1000).unref();
    try {
      stop = this.store.watch(
        p.type,
        { namespace: p.namespace, labelSelector: url.searchParams.get('labelSelector') ?? undefined, resourceVersion: url.searchParams.get('resourceVersion') ?? '' },
        (e) => res.write(`${JSON.stringify(e)}\n`),
        end,
      );
    } catch (err) {
      // An expired resourceVersion is reported inside the stream, as the real API server does.
      const e = err instanceof KubeApiError ? err : new KubeApiError(500, 'InternalError', (err as Error).message);
      res.write(`${JSON.stringify({ type: 'ERROR', object: statusBody(e) })}\n`);
      end();
    }
  }
}

