// Status shapes shared by the CRDs: conditions, per-component replica counts, the phase column.
import { arr, int, map, obj, oneOf, str } from './schema.ts';
import type { Static } from './schema.ts';

/** CONDITION_TYPES are the condition types every top-level resource reports. */
export const CONDITION_TYPES = ['Ready', 'Progressing', 'Degraded'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** PHASES summarise the conditions for the printer column. */
export const PHASES = ['Ready', 'Progressing', 'Degraded', 'Paused'] as const;
export type Phase = (typeof PHASES)[number];

export const condition = obj(
  {
    type: str({ description: 'Condition type: Ready, Progressing or Degraded.', maxLength: 316 }),
    status: oneOf(['True', 'False', 'Unknown'] as const, { description: 'Condition status.' }),
    reason: str({ description: 'Machine-readable CamelCase reason.', maxLength: 1024 }),
    message: str({ description: 'Human-readable detail.', maxLength: 32768 }),
    lastTransitionTime: str({ description: 'When the status last changed.', format: 'date-time' }),
    observedGeneration: int({ description: 'metadata.generation the condition was computed for.', minimum: 0 }),
  },
  { description: 'A status condition.', required: ['type', 'status', 'reason', 'lastTransitionTime'] },
);
export type Condition = Static<typeof condition>;

export const conditions = arr(condition, { description: 'Current conditions.', listType: 'map', listMapKeys: ['type'], maxItems: 16 });

export const componentStatus = obj(
  {
    replicas: int({ description: 'Desired Pods.', minimum: 0 }),
    readyReplicas: int({ description: 'Ready Pods.', minimum: 0 }),
    updatedReplicas: int({ description: 'Pods running the current Pod template.', minimum: 0 }),
    ready: str({ description: 'ready/desired, for the printer columns.', maxLength: 32 }),
  },
  { description: 'Replica counts of one component.' },
);
export type ComponentStatus = Static<typeof componentStatus>;

/**
 * resolvedImages records the image of every container the operator runs for a resource. Image
 * fields the spec leaves empty are filled from here, not from the operator's current defaults,
 * so an operator upgrade does not restart Pods (docs/operator.md, "Images and upgrades").
 */
export const resolvedImages = map(str({ description: 'Full image reference (repository:tag).', maxLength: 1024 }), {
  description:
    'Image of each container of the Pod templates, by container name, recorded by the operator. Image fields left empty in the spec are taken from here rather than from the operator defaults, so upgrading the operator keeps images. Remove an entry (or set spec image.tag) to move a container to the current operator default.',
  example: { tsdb: 'strata/tsdb:0.1.0', backup: 'strata/backupmanager:0.1.0' },
  maxProperties: 16,
});

/** baseStatus fields are in the status of every top-level resource. */
export const baseStatus = {
  observedGeneration: int({ description: 'metadata.generation the status was computed for.', minimum: 0 }),
  phase: oneOf(PHASES, { description: 'Summary of the conditions.' }),
  conditions,
  resolvedImages,
};
