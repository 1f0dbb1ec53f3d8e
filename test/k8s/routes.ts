// URL parsing for the fake API server: maps REST paths to resource types and RBAC verbs.
import type { ResourceType } from '../../operator/k8s/resources.ts';

/** ParsedPath locates a request within the resource tree. */
export interface ParsedPath {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

/** parseResourcePath resolves /api/v1/... and /apis/g/v/... paths; undefined when not a resource path. */
export function parseResourcePath(path: string, types: readonly ResourceType[]): ParsedPath | undefined {
  const parts = path.split('/').filter((p) => p !== '').map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const type = types.find((t) => t.group === group && t.version === version && t.plural === rest[0]);
  if (type === undefined) {
    // /api/v1/namespaces/{name} itself is a cluster-scoped object path.
    if (namespace !== undefined && rest.length === 0) {
      const ns = types.find((t) => t.group === group && t.version === version && t.plural === 'namespaces');
      return ns === undefined ? undefined : { type: ns, namespace: undefined, name: namespace, subresource: undefined };
    }
    return undefined;
  }
  if (!type.namespaced && namespace !== undefined) return undefined;
  return { type, namespace, name: rest[1], subresource: rest[2] };
}

/** rbacVerb is the authorization verb of a request (get, list, watch, create, update, patch, delete). */
export function rbacVerb(method: string, p: ParsedPath, watch: boolean): string {
  switch (method) {
    case 'GET':
      return p.name === undefined ? (watch ? 'watch' : 'list') : watch ? 'watch' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return p.name === undefined ? 'deletecollection' : 'delete';
    default:
      return method.toLowerCase();
  }
}

/** rbacResource is the resource name RBAC rules use, "plural" or "plural/subresource". */
export function rbacResource(p: ParsedPath): string {
  return p.subresource === undefined ? p.type.plural : `${p.type.plural}/${p.subresource}`;
}

/** PolicyRule is an RBAC rule (only the fields the operator's role uses). */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/** allowed checks a request against rules, as the RBAC authorizer would. */
export function allowed(rules: readonly PolicyRule[], group: string, resource: string, verb: string): boolean {
  return rules.some(
    (r) => (r.apiGroups.includes(group) || r.apiGroups.includes('*')) && (r.resources.includes(resource) || r.resources.includes('*')) && (r.verbs.includes(verb) || r.verbs.includes('*')),
  );
}
