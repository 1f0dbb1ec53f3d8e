import { CoreV1Api, VersionApi } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { realApiServer } from './apiserver.ts';

describe('real CRD API server harness', () => {
  it('serves Kubernetes 1.36 to the admin kubeconfig', async () => {
    const { kubeConfig } = await realApiServer();
    const version = await kubeConfig.makeApiClient(VersionApi).getCode();
    expect(version.major).toBe('1');
    expect(version.minor).toMatch(/^36/);
  });

  it('has no core API: core kinds must come from elsewhere', async () => {
    const { kubeConfig } = await realApiServer();
    await expect(kubeConfig.makeApiClient(CoreV1Api).listNamespace()).rejects.toThrow(/404/);
  });
});
