// Building blocks shared by several CRDs: pod placement, images, resources, PDB, HPA, storage.
import { arr, bool, int, intOrString, map, obj, oneOf, opaque, str } from './schema.ts';
import type { Static } from './schema.ts';

/** QUANTITY_PATTERN is Kubernetes' resource.Quantity syntax (e.g. 500m, 2Gi, 1e3). */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
/** DURATION_PATTERN is the flag duration syntax the Strata binaries accept (1h30m, 10s, 2d). */
export const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ms|s|m|h|d|w|y))+$';
/** DNS_LABEL_PATTERN is an RFC 1123 label (object names that become parts of other names). */
export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** image is a container image override. */
export const image = obj(
  {
    repository: str({ description: 'Image repository; when empty, the repository the container runs now (status.resolvedImages), or the operator default for a new container.', example: 'ghcr.io/strata/tsdb', maxLength: 512 }),
    tag: str({ description: 'Image tag; when empty, the tag the container runs now (status.resolvedImages), or the operator default for a new container.', example: '0.1.0', maxLength: 128 }),
    pullPolicy: oneOf(['Always', 'IfNotPresent', 'Never'] as const, { description: 'Image pull policy.', default: 'IfNotPresent' }),
  },
  {
    description:
      'Container image. Fields left empty keep the image recorded in status.resolvedImages; a new container takes the operator defaults (its -image.* flags), so operator upgrades do not change running images.',
  },
);
/** Image is a defaulted image override. */
export type Image = Static<typeof image>;

/** resources are container resource requirements. */
export const resources = obj(
  {
    limits: map(intOrString({ description: 'Quantity.', pattern: QUANTITY_PATTERN }), { description: 'Resource limits (cpu, memory, ...).', example: { memory: '2Gi' } }),
    requests: map(intOrString({ description: 'Quantity.', pattern: QUANTITY_PATTERN }), { description: 'Resource requests.', example: { cpu: '500m', memory: '1Gi' } }),
  },
  { description: 'Compute resources of the main container, as in a Pod spec.' },
);
/** Resources are container resource requirements. */
export type Resources = Static<typeof resources>;

/** toleration is a Pod toleration. */
export const toleration = obj(
  {
    key: str({ description: 'Taint key the toleration applies to; empty with operator Exists matches all.', maxLength: 316, example: 'dedicated' }),
    operator: oneOf(['Exists', 'Equal'] as const, { description: 'Relation between key and value.' }),
    value: str({ description: 'Taint value to match with operator Equal.', maxLength: 63, example: 'metrics' }),
    effect: oneOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const, { description: 'Taint effect to match; empty matches all.' }),
    tolerationSeconds: int({ description: 'How long a NoExecute taint is tolerated.', minimum: 0, example: 300 }),
  },
  { description: 'A Pod toleration.' },
);

/** envVar is a container environment variable. */
export const envVar = obj(
  {
    name: str({ description: 'Variable name.', minLength: 1, maxLength: 256, example: 'GOMAXPROCS' }),
    value: str({ description: 'Literal value.', example: '2' }),
    valueFrom: opaque({ description: 'Source of the value, as Kubernetes EnvVarSource (secretKeyRef, configMapKeyRef, fieldRef, ...).', example: { secretKeyRef: { name: 'tokens', key: 'api' } } }),
  },
  { description: 'An environment variable.', required: ['name'], rules: [{ rule: '!(has(self.value) && has(self.valueFrom))', message: 'value and valueFrom are mutually exclusive' }] },
);

/** extraArgs are extra flags of a container. */
export const extraArgs = map(str({ description: 'Flag value.', maxLength: 4096 }), {
  description:
    'Extra command-line flags as name: value, rendered as -name=value (sorted). A name set here overrides the flag the operator would set.',
  example: { 'search.maxUniqueTimeseries': '1000000', loggerLevel: 'WARN' },
  maxProperties: 128,
  // Only startsWith: the API server bounds CEL cost, and map keys have no length limit to bound contains().
  rules: [{ rule: "self.all(k, !k.startsWith('-'))", message: 'flag names are given without leading dashes' }],
});

/** extraEnv are extra environment variables of a container. */
export const extraEnv = arr(envVar, {
  description: 'Extra environment variables of the main container.',
  listType: 'map',
  listMapKeys: ['name'],
  maxItems: 128,
  example: [{ name: 'GOMAXPROCS', value: '2' }],
});

/** podMetadata adds Pod labels and annotations. */
export const podMetadata = obj(
  {
    labels: map(str({ description: 'Label value.', maxLength: 63 }), { description: 'Labels added to the Pods.', example: { team: 'observability' } }),
    annotations: map(str({ description: 'Annotation value.' }), { description: 'Annotations added to the Pods.', example: { 'example.com/owner': 'metrics-team' } }),
  },
  { description: 'Extra Pod labels and annotations (the operator-managed ones win on conflict).' },
);

/** placement fields appear in every workload section; spread them into an obj() property map. */
export const placement = {
  affinity: opaque({ description: 'Pod affinity, as Kubernetes Affinity.', example: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } } }),
  tolerations: arr(toleration, { description: 'Pod tolerations.', maxItems: 64, example: [{ key: 'dedicated', operator: 'Equal', value: 'metrics', effect: 'NoSchedule' }] }),
  nodeSelector: map(str({ description: 'Label value.' }), { description: 'Node labels the Pods must match.', example: { 'kubernetes.io/os': 'linux' } }),
  priorityClassName: str({ description: 'Pod priority class.', maxLength: 253, example: 'high-priority' }),
  podMetadata,
};

/** podDisruptionBudget is the PDB section of a component. */
export const podDisruptionBudget = obj(
  {
    minAvailable: intOrString({ description: 'Pods that must stay available (number or percentage).', pattern: '^[0-9]+%?$', example: 1 }),
    maxUnavailable: intOrString({ description: 'Pods that may be unavailable (number or percentage).', pattern: '^[0-9]+%?$', example: 1 }),
  },
  {
    description: 'Creates a PodDisruptionBudget for the component; the operator evicts storage Pods through it during rollouts.',
    rules: [{ rule: 'has(self.minAvailable) != has(self.maxUnavailable)', message: 'set exactly one of minAvailable and maxUnavailable' }],
  },
);
/** PodDisruptionBudgetSpec is a PDB section. */
export type PodDisruptionBudgetSpec = Static<typeof podDisruptionBudget>;

/** horizontalPodAutoscaler is the HPA section of a stateless component. */
export const horizontalPodAutoscaler = obj(
  {
    minReplicas: int({ description: 'Lower bound of the replica count.', minimum: 1, default: 1 }),
    maxReplicas: int({ description: 'Upper bound of the replica count.', minimum: 1, example: 10 }),
    targetCPUUtilizationPercentage: int({ description: 'Average CPU utilisation (percent of requests) to keep.', minimum: 1, maximum: 1000, example: 80 }),
    targetMemoryUtilizationPercentage: int({ description: 'Average memory utilisation (percent of requests) to keep.', minimum: 1, maximum: 1000, example: 75 }),
  },
  {
    description: 'Creates an autoscaling/v2 HorizontalPodAutoscaler; the Deployment replica count is then left to it.',
    required: ['maxReplicas'],
    rules: [
      { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
      { rule: 'has(self.targetCPUUtilizationPercentage) || has(self.targetMemoryUtilizationPercentage)', message: 'set a CPU or a memory utilisation target' },
    ],
  },
);
/** HorizontalPodAutoscalerSpec is a defaulted HPA section. */
export type HorizontalPodAutoscalerSpec = Static<typeof horizontalPodAutoscaler>;

/** persistentStorage is the data volume section. */
export const persistentStorage = obj(
  {
    storageClassName: str({ description: 'StorageClass of the volume; the cluster default when empty.', example: 'fast-ssd', maxLength: 253 }),
    size: str({ description: 'Requested volume size.', pattern: QUANTITY_PATTERN, maxLength: 32, default: '10Gi', example: '100Gi' }),
    accessModes: arr(oneOf(['ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteMany'] as const, { description: 'Access mode.' }), {
      description: 'Volume access modes; ReadWriteOnce when empty.',
      maxItems: 3,
      example: ['ReadWriteOnce'],
      listType: 'set',
    }),
  },
  {
    description:
      'Persistent volume for the data directory (one claim per Pod). Without it the data lives in an emptyDir and is lost with the Pod. Immutable once set: StatefulSet volume claim templates cannot change.',
    rules: [{ rule: 'self == oldSelf', message: 'volume settings are immutable (StatefulSet volume claim templates cannot change)' }],
  },
);
/** PersistentStorage is a defaulted data volume section. */
export type PersistentStorage = Static<typeof persistentStorage>;

/** secretKeyRef names a key of a Secret. */
export const secretKeyRef = obj(
  {
    name: str({ description: 'Secret name (same namespace).', pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253, example: 'strata-credentials' }),
    key: str({ description: 'Key inside the Secret.', pattern: '^[-._a-zA-Z0-9]+$', maxLength: 253, example: 'password' }),
  },
  { description: 'A key of a Secret in the namespace of the resource.', required: ['name', 'key'] },
);
/** SecretKeyRef names a key of a Secret. */
export type SecretKeyRef = Static<typeof secretKeyRef>;

/** configMapKeyRef names a key of a ConfigMap. */
export const configMapKeyRef = obj(
  {
    name: str({ description: 'ConfigMap name (same namespace).', pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253, example: 'jwt-public' }),
    key: str({ description: 'Key inside the ConfigMap.', pattern: '^[-._a-zA-Z0-9]+$', maxLength: 253, example: 'issuer.pem' }),
  },
  { description: 'A key of a ConfigMap in the namespace of the resource.', required: ['name', 'key'] },
);

/** tsdbRef references a TSDBSingle or TSDBCluster. */
export const tsdbRef = obj(
  {
    kind: oneOf(['TSDBSingle', 'TSDBCluster'] as const, { description: 'Kind of the referenced TSDB resource.' }),
    name: str({ description: 'Name of the referenced resource.', pattern: DNS_LABEL_PATTERN, maxLength: 63, example: 'prod' }),
    namespace: str({ description: 'Namespace of the referenced resource; the referencing resource\'s namespace when empty.', pattern: DNS_LABEL_PATTERN, maxLength: 63, example: 'metrics' }),
  },
  { description: 'A reference to a TSDBSingle or TSDBCluster; the operator resolves it to its Service URLs.', required: ['kind', 'name'] },
);
/** TSDBRef references a TSDBSingle or TSDBCluster. */
export type TSDBRef = Static<typeof tsdbRef>;

/** labelSelector is a Kubernetes label selector. */
export const labelSelector = obj(
  {
    matchLabels: map(str({ description: 'Label value.', maxLength: 63 }), { description: 'Labels that must all match.', example: { proxy: 'front' } }),
    matchExpressions: arr(
      obj(
        {
          key: str({ description: 'Label key.', maxLength: 316, example: 'team' }),
          operator: oneOf(['In', 'NotIn', 'Exists', 'DoesNotExist'] as const, { description: 'Relation of the key to the values.' }),
          values: arr(str({ description: 'Value.', maxLength: 63 }), { description: 'Values for In and NotIn.', maxItems: 64, example: ['a', 'b'] }),
        },
        {
          description: 'A label selector requirement.',
          required: ['key', 'operator'],
          rules: [
            { rule: "(self.operator in ['In', 'NotIn']) == (has(self.values) && size(self.values) > 0)", message: 'values must be non-empty for In and NotIn and empty otherwise' },
          ],
        },
      ),
      { description: 'Requirements that must all match.', maxItems: 32 },
    ),
  },
  { description: 'A Kubernetes label selector; an empty selector matches everything.' },
);
/** LabelSelector is a Kubernetes label selector. */
export type LabelSelector = Static<typeof labelSelector>;

/** ipFilters are client IP allow and deny lists. */
export const ipFilters = obj(
  {
    allowList: arr(str({ description: 'IP address or CIDR network.', maxLength: 64 }), { description: 'Allowed client addresses; empty allows all that are not denied.', maxItems: 1024, example: ['10.0.0.0/8'] }),
    denyList: arr(str({ description: 'IP address or CIDR network.', maxLength: 64 }), { description: 'Denied client addresses; wins over allowList.', maxItems: 1024, example: ['10.0.0.13'] }),
  },
  { description: 'Client IP filtering (auth proxy ip_filters).' },
);

/** serviceSpec shapes a component Service. */
export const serviceSpec = obj(
  {
    type: oneOf(['ClusterIP', 'NodePort', 'LoadBalancer'] as const, { description: 'Service type.', default: 'ClusterIP' }),
    annotations: map(str({ description: 'Annotation value.' }), { description: 'Annotations of the Service (for load balancer settings).', example: { 'service.beta.kubernetes.io/aws-load-balancer-internal': 'true' } }),
  },
  { description: 'Settings of the component Service.', defaultEmpty: true },
);

/** workload fields shared by every Pod-running section. */
export const workload = {
  image,
  resources,
  extraArgs,
  extraEnv,
  ...placement,
};

/** paused is the same toggle in every top-level spec. */
export const paused = bool({ description: 'Stops all writes to the children of this resource (status is still reported).', default: false });

/** imagePullSecrets name pull secrets for all Pods of a resource. */
export const imagePullSecrets = arr(
  obj({ name: str({ description: 'Secret name.', maxLength: 253, example: 'registry-credentials' }) }, { description: 'A pull secret reference.', required: ['name'] }),
  { description: 'Pull secrets for all Pods of this resource.', maxItems: 16 },
);
