// What the operator renders for a TSDBGateway must start this binary: every argument of the
// container is a flag the gateway accepts with a valid value, the flag set as a whole passes the
// gateway's checks, and the rate limit ConfigMap parses with the gateway's parser.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultedSpec } from '../../operator/api/defaulted.ts';
import type { TSDBGateway } from '../../operator/api/resources.ts';
import { buildTSDBGateway } from '../../operator/factory/gateway/build.ts';
import type { KubeObject } from '../../operator/k8s/types.ts';
import { gatewayFlagsFromFlags, parseRateLimitConfig } from '../../src/app/gateway/index.ts';
import { defaultFlagSet, parseProcessFlags } from '../../src/lib/flags/index.ts';
import '../../src/lib/process/index.ts';

const TESTDATA = join(import.meta.dirname, '../../operator/factory/testdata');
const OPTS = { images: { tsdb: 't', gateway: 'g', authproxy: 'a', backupmanager: 'b' } };

// Flags are process-wide: each case parses into a clean slate.
const saved = defaultFlagSet.all().map((f) => [f, f.value, f.isSet] as const);
afterEach(() => {
  for (const [f, v, isSet] of saved) f.set(v, isSet);
});

function rendered(cr: KubeObject) {
  const objects = buildTSDBGateway(defaultedSpec(cr) as TSDBGateway, OPTS, { publicKeys: [] });
  const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } };
  const cm = objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> } | undefined;
  return { args: deployment.spec.template.spec.containers[0]!.args, limits: cm?.data['limits.yaml'] };
}

function accept(args: readonly string[]) {
  const outcome = parseProcessFlags('gateway', args, {});
  expect(outcome, JSON.stringify(args)).toEqual({ kind: 'run', positionals: [] });
  return gatewayFlagsFromFlags();
}

const fixture = (name: string) => load(readFileSync(join(TESTDATA, name), 'utf8')) as KubeObject;

describe('operator-rendered TSDBGateway args', () => {
  it('are accepted for the explicit-URL fixture', () => {
    const { args } = rendered(fixture('gateway-urls.yaml'));
    const f = accept(args);
    expect([f.enableAuth, f.clusterMode, f.authHeader, f.read?.url, f.rateLimit]).toEqual([true, false, 'x-token', 'http://tsdb-single-main.metrics.svc:8428', undefined]);
  });

  it('are accepted for the cluster fixture with keys and rate limiting, and its limits parse', () => {
    const { args, limits } = rendered(fixture('gateway-cluster.yaml'));
    const f = accept(args);
    expect(f.clusterMode).toBe(true);
    expect(f.publicKeyFiles).toHaveLength(2);
    expect(f.jwksEndpoints).toEqual(['https://issuer.example.com/.well-known/jwks.json']);
    expect(f.rateLimit?.configLocation).toBe('/etc/strata/ratelimit/limits.yaml');
    expect(f.rateLimit?.refreshIntervalMs).toBe(5000);
    expect(f.rateLimit?.configCheckIntervalMs).toBe(30_000);
    expect(parseRateLimitConfig(limits!).limits).toHaveLength(2);
  });

  it('are accepted with every gateway field of the CRD set, extraArgs included', () => {
    const cr = {
      apiVersion: 'strata.dev/v1beta1', kind: 'TSDBGateway', metadata: { name: 'all', namespace: 'm' },
      spec: {
        eula: true,
        target: { readURL: 'http://select:8481', writeURL: 'http://insert:8480', clusterMode: true },
        auth: {
          enabled: true, httpHeader: 'X-Auth', publicKeys: [{ secretKeyRef: { name: 's', key: 'k' } }],
          jwksURLs: ['https://a/jwks', 'https://b/jwks'], oidcDiscoveryURLs: ['https://c/.well-known/openid-configuration'],
        },
        rateLimit: {
          enabled: true, datasourceURL: 'http://select:8481/select/0/prometheus', refreshInterval: '10s', extraLabels: ['cluster=prod', 'env=a'],
          limits: [
            { type: 'queries', value: 10 }, { type: 'active_series', value: 5, resolution: 'hour', accountID: 2 },
            { type: 'new_series', value: 1, accountID: 3, projectID: 4 }, { type: 'rows_inserted', value: 0 },
          ],
        },
        extraArgs: { 'loggerLevel': 'WARN', 'datasource.appendTypePrefix': 'true', 'logInvalidAuthTokens': 'true', 'http.pathPrefix': '/gw' },
      },
    } as unknown as KubeObject;
    const { args, limits } = rendered(cr);
    const f = accept(args);
    expect(f.authHeader).toBe('x-auth');
    expect(f.oidcDiscoveryEndpoints).toEqual(['https://c/.well-known/openid-configuration']);
    expect(f.rateLimit?.extraLabels).toEqual([{ name: 'cluster', value: 'prod' }, { name: 'env', value: 'a' }]);
    expect(f.rateLimit?.datasource.appendTypePrefix).toBe(true);
    expect(parseRateLimitConfig(limits!).limits.map((l) => [l.type, l.resolution, l.tenant])).toEqual([
      ['queries', 'minute', undefined], ['active_series', 'hour', { accountID: 2, projectID: 0 }], ['new_series', 'minute', { accountID: 3, projectID: 4 }], ['rows_inserted', 'minute', undefined],
    ]);
  });
});
