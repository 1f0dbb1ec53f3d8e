import { expect, it } from 'vitest';
import { defaultKubeConfigSource, SERVICE_ACCOUNT_TOKEN } from './kubeconfig-source.ts';

it('follows the chain of loadFromDefault, and says what it looked at when it finds nothing', () => {
  const f = (env: Record<string, string>, files: string[]) => {
    try {
      return defaultKubeConfigSource(env, (p) => files.includes(p));
    } catch (err) {
      return (err as Error).message;
    }
  };
  expect(f({ KUBECONFIG: '/a:/b', HOME: '/h' }, ['/h/.kube/config'])).toEqual({ kind: 'KUBECONFIG', path: '/a:/b' });
  expect(f({ KUBECONFIG: '', HOME: '/h' }, ['/h/.kube/config', SERVICE_ACCOUNT_TOKEN])).toEqual({ kind: 'home', path: '/h/.kube/config' });
  expect(f({ HOME: '/h', KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, [SERVICE_ACCOUNT_TOKEN])).toEqual({ kind: 'in-cluster' });
  expect(f({ HOME: '/h' }, [SERVICE_ACCOUNT_TOKEN])).toBe(`cannot use the in-cluster Kubernetes config: ${SERVICE_ACCOUNT_TOKEN} exists but KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set`);
  expect(f({ HOME: '/h' }, [])).toBe(`cannot find a Kubernetes config: -kubeconfig is not set, KUBECONFIG is empty, there is no /h/.kube/config, and this is not a Pod (no ${SERVICE_ACCOUNT_TOKEN}); pass -kubeconfig=<file> or set KUBECONFIG`);
  expect(f({ HOME: '' }, [])).toMatch(/^cannot find a Kubernetes config: -kubeconfig is not set, KUBECONFIG is empty, HOME is not set, and this is not a Pod/);
});
