// Operator metrics (operator_* prefix, DECISIONS.md naming) backed by the process registry.
import { counter, gauge, histogram } from '../../src/lib/metrics/index.ts';
import type { OperatorMetrics } from '../controller/manager.ts';

const reconciles = counter('operator_reconciles_total', 'Finished reconciles by kind and outcome (success, error)', ['kind', 'outcome']);
const duration = histogram('operator_reconcile_duration_seconds', 'Reconcile durations by kind', [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], ['kind']);
const queueDepth = gauge('operator_work_queue_depth', 'Resources waiting for a worker');
const leader = gauge('operator_is_leader', '1 while this instance holds the leader Lease (or runs without election)');

/** operatorMetrics records manager events into the process registry. */
export const operatorMetrics: OperatorMetrics = {
  reconcileFinished(kind, outcome, seconds) {
    reconciles.inc({ kind, outcome });
    duration.observe({ kind }, seconds);
  },
  setQueueDepth(depth) {
    queueDepth.set(depth);
  },
};

/** setLeader exports the leadership state. */
export function setLeader(leading: boolean): void {
  leader.set(leading ? 1 : 0);
}
