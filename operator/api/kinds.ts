// The five kinds of group strata.dev/v1beta1: names, schemas, printer columns and subresources.
import { authProxySpec, authProxyStatus } from './auth-proxy.ts';
import { authProxyUserSpec, authProxyUserStatus } from './auth-proxy-user.ts';
import type { JsonSchemaProps, Schema } from './schema.ts';
import { tsdbClusterSpec, tsdbClusterStatus } from './tsdb-cluster.ts';
import { tsdbGatewaySpec, tsdbGatewayStatus } from './tsdb-gateway.ts';
import { tsdbSingleSpec, tsdbSingleStatus } from './tsdb-single.ts';

/** GROUP, VERSION and API_VERSION identify the API of every kind. */
export const GROUP = 'strata.dev';
export const VERSION = 'v1beta1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** PrinterColumn is one additionalPrinterColumns entry. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  readonly jsonPath: string;
  readonly description: string;
  readonly priority?: number;
}

/** KindDefinition is everything the CRD generator and the operator need to know about a kind. */
export interface KindDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly description: string;
  readonly spec: Schema<unknown>;
  readonly specRequired: boolean;
  readonly status: Schema<unknown>;
  readonly printerColumns: readonly PrinterColumn[];
  /** scale enables the scale subresource on .spec.replicas. */
  readonly scale: boolean;
}

const statusColumn: PrinterColumn = { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'Summary of the conditions' };
const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time since creation' };
const readyColumn = (name: string, component: string): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath: `.status.${component}.ready`,
  description: `Ready/desired ${component} Pods`,
});

/** KINDS lists the five kinds; crds/ holds one CRD per entry. */
export const KINDS: readonly KindDefinition[] = [
  {
    kind: 'TSDBSingle',
    plural: 'tsdbsingles',
    singular: 'tsdbsingle',
    shortNames: ['tsdbs'],
    description: 'A single-node Strata TSDB.',
    spec: tsdbSingleSpec,
    specRequired: false,
    status: tsdbSingleStatus,
    printerColumns: [statusColumn, readyColumn('Ready', 'tsdb'), ageColumn],
    scale: false,
  },
  {
    kind: 'TSDBCluster',
    plural: 'tsdbclusters',
    singular: 'tsdbcluster',
    shortNames: ['tsdbc'],
    description: 'A Strata cluster TSDB: storage, select and insert roles.',
    spec: tsdbClusterSpec,
    specRequired: false,
    status: tsdbClusterStatus,
    printerColumns: [statusColumn, readyColumn('Storage', 'storage'), readyColumn('Select', 'select'), readyColumn('Insert', 'insert'), ageColumn],
    scale: false,
  },
  {
    kind: 'TSDBGateway',
    plural: 'tsdbgateways',
    singular: 'tsdbgateway',
    shortNames: ['tsdbgw'],
    description: 'A Strata JWT gateway with rate limiting.',
    spec: tsdbGatewaySpec,
    specRequired: true,
    status: tsdbGatewayStatus,
    printerColumns: [statusColumn, readyColumn('Ready', 'gateway'), ageColumn],
    scale: true,
  },
  {
    kind: 'AuthProxy',
    plural: 'authproxies',
    singular: 'authproxy',
    shortNames: ['ap'],
    description: 'A Strata auth proxy serving the AuthProxyUsers it selects.',
    spec: authProxySpec,
    specRequired: false,
    status: authProxyStatus,
    printerColumns: [
      statusColumn,
      readyColumn('Ready', 'authproxy'),
      { name: 'Users', type: 'integer', jsonPath: '.status.users', description: 'Users in the config' },
      { name: 'Rejected', type: 'integer', jsonPath: '.status.rejectedUsers', description: 'Selected users left out', priority: 1 },
      ageColumn,
    ],
    scale: true,
  },
  {
    kind: 'AuthProxyUser',
    plural: 'authproxyusers',
    singular: 'authproxyuser',
    shortNames: ['apu'],
    description: 'Credentials and routes of one Strata auth proxy user.',
    spec: authProxyUserSpec,
    specRequired: true,
    status: authProxyUserStatus,
    printerColumns: [
      statusColumn,
      { name: 'Username', type: 'string', jsonPath: '.spec.username', description: 'Basic auth username' },
      { name: 'Proxies', type: 'string', jsonPath: '.status.authProxies', description: 'AuthProxies serving the user', priority: 1 },
      ageColumn,
    ],
    scale: false,
  },
];

/** kindDefinition returns the definition of a kind; throws for kinds outside strata.dev. */
export function kindDefinition(kind: string): KindDefinition {
  const def = KINDS.find((k) => k.kind === kind);
  if (def === undefined) throw new Error(`unknown strata.dev kind "${kind}"`);
  return def;
}

/** objectSchema is the full openAPIV3Schema of a kind (apiVersion, kind, metadata, spec, status). */
export function objectSchema(def: KindDefinition): JsonSchemaProps {
  const json: JsonSchemaProps = {
    type: 'object',
    description: def.description,
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion of this representation of the object.' },
      kind: { type: 'string', description: 'Kind of the object.' },
      metadata: { type: 'object' },
      spec: def.spec.json,
      status: def.status.json,
    },
  };
  if (def.specRequired) json.required = ['spec'];
  return json;
}
