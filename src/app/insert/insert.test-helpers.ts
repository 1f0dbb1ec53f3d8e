import { createLogger } from '../../lib/logger/index.ts';
import { type Inserter } from '../../lib/storageapi/index.ts';
import { type InsertOptions } from './ingest.ts';

/** NOW is the clock of insert tests (ms). */
export const NOW = 1_700_000_000_000;

/** testInsertOptions builds InsertOptions with a silent logger and a fixed clock. */
export function testInsertOptions(inserter: Inserter, maxRequestBytes = 1 << 20): InsertOptions {
  const { logger } = createLogger({ format: 'default', level: 'ERROR', jsonFields: {}, timezone: 'UTC', disableTimestamps: true, errorsPerSecondLimit: 0, warnsPerSecondLimit: 0, write: () => {} });
  return {
    inserter, maxRequestBytes, now: () => NOW, logger, agentSanitizeMetricName: true,
    influx: { measurementFieldSeparator: '_', skipSingleField: false, skipMeasurement: false },
  };
}

