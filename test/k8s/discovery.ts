// Discovery documents (/api, /apis, /api/v1, /apis/<group>/<version>, /version) for the fake.
import type { ResourceType } from '../../operator/k8s/resources.ts';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function resourceList(groupVersion: string, types: readonly ResourceType[]): unknown {
  const resources = types.flatMap((t) => {
    const main = { name: t.plural, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: VERBS };
    const subs = [];
    if (t.hasStatus) subs.push({ name: `${t.plural}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] });
    if (t.kind === 'Pod') subs.push({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    return [main, ...subs];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

/** APIGroup is a discovery entry of an API group (as /apis lists them). */
export interface APIGroup {
  readonly name: string;
}

/** discovery answers a discovery path, or returns undefined for other paths; /apis also lists extraGroups. */
export function discovery(path: string, types: readonly ResourceType[], extraGroups: readonly APIGroup[] = []): unknown {
  const p = path.replace(/\/+$/, '');
  if (p === '/version') return { major: '1', minor: '35', gitVersion: 'v1.35.0-strata-fake', platform: 'linux/amd64' };
  if (p === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (p === '/api/v1') return resourceList('v1', types.filter((t) => t.group === ''));
  if (p === '/apis') {
    const groups = [...new Set(types.filter((t) => t.group !== '').map((t) => `${t.group}/${t.version}`))].sort().map((gv) => {
      const [name, version] = gv.split('/') as [string, string];
      const v = { groupVersion: gv, version };
      return { name, versions: [v], preferredVersion: v };
    });
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups, ...extraGroups].sort((a, b) => a.name.localeCompare(b.name)) };
  }
  const m = /^\/apis\/([^/]+)\/([^/]+)$/.exec(p);
  if (m !== null) {
    const matching = types.filter((t) => t.group === m[1] && t.version === m[2]);
    return matching.length === 0 ? undefined : resourceList(`${m[1]}/${m[2]}`, matching);
  }
  return undefined;
}
