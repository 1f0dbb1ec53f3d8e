// TSDBSingle: one single-node TSDB (ingestion, storage and query in one Pod), optionally backed up.
import { backup } from './backup.ts';
import { imagePullSecrets, paused, persistentStorage, serviceSpec, workload } from './common.ts';
import { obj, str } from './schema.ts';
import type { Static } from './schema.ts';
import { baseStatus, componentStatus } from './status.ts';

/** RETENTION_PATTERN: a bare number is months; h, d, w, y suffixes as in -retentionPeriod. */
export const RETENTION_PATTERN = '^[0-9]+(\\.[0-9]+)?(h|d|w|y)?$';

export const retentionPeriod = str({
  description: 'How long samples are kept (-retentionPeriod): a number of months, or a number with h, d, w or y.',
  pattern: RETENTION_PATTERN,
  default: '1',
  example: '90d',
});

export const tsdbSingleSpec = obj(
  {
    paused,
    imagePullSecrets,
    ...workload,
    retentionPeriod,
    storage: persistentStorage,
    service: serviceSpec,
    backup,
  },
  {
    description: 'Desired state of a single-node TSDB.',
    defaultEmpty: true,
    rules: [{ rule: 'has(self.storage) == has(oldSelf.storage)', message: 'storage cannot be added or removed after creation' }],
  },
);

export const tsdbSingleStatus = obj({ ...baseStatus, tsdb: componentStatus }, { description: 'Observed state of a single-node TSDB.' });

/** TSDBSingleSpec is the defaulted spec the operator works with. */
export type TSDBSingleSpec = Static<typeof tsdbSingleSpec>;
export type TSDBSingleStatus = Static<typeof tsdbSingleStatus>;
