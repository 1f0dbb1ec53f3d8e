// Where @kubernetes/client-node's KubeConfig.loadFromDefault() will read its config from. When it
// finds nothing it does not fail: it makes up a cluster at http://localhost:8080, and every request
// then fails with "HTTP protocol is not allowed when skipTLSVerify is not set", which an operator
// started outside a cluster repeated every 2 s. This mirrors that chain (Linux and macOS) so the
// binary can say plainly that there is no config instead.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** SERVICE_ACCOUNT_TOKEN is the file whose presence makes loadFromDefault use the in-cluster config. */
export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** KubeConfigSource names what loadFromDefault will load. */
export type KubeConfigSource = { readonly kind: 'KUBECONFIG' | 'home'; readonly path: string } | { readonly kind: 'in-cluster' };

/**
 * defaultKubeConfigSource returns what loadFromDefault will read: $KUBECONFIG, $HOME/.kube/config,
 * or the Pod's service account; it throws, saying what it looked at, when there is none (or a
 * service account without the KUBERNETES_SERVICE_HOST/PORT variables that go with it).
 */
export function defaultKubeConfigSource(env: Readonly<Record<string, string | undefined>> = process.env, exists: (path: string) => boolean = existsSync): KubeConfigSource {
  const list = env['KUBECONFIG'];
  if (list !== undefined && list !== '') return { kind: 'KUBECONFIG', path: list };
  const home = env['HOME'];
  const homeConfig = home === undefined || home === '' ? undefined : join(home, '.kube', 'config');
  if (homeConfig !== undefined && exists(homeConfig)) return { kind: 'home', path: homeConfig };
  if (exists(SERVICE_ACCOUNT_TOKEN)) {
    if (env['KUBERNETES_SERVICE_HOST'] === undefined || env['KUBERNETES_SERVICE_PORT'] === undefined) {
      throw new Error(`cannot use the in-cluster Kubernetes config: ${SERVICE_ACCOUNT_TOKEN} exists but KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set`);
    }
    return { kind: 'in-cluster' };
  }
  throw new Error('cannot find a Kubernetes config: -kubeconfig is not set, KUBECONFIG is empty, '
    + `${homeConfig === undefined ? 'HOME is not set' : `there is no ${homeConfig}`}, and this is not a Pod (no ${SERVICE_ACCOUNT_TOKEN}); `
    + 'pass -kubeconfig=<file> or set KUBECONFIG');
}
