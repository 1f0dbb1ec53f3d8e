import type { Logger } from '../../../lib/logger/index.ts';
import { counter } from '../../../lib/metrics/index.ts';
import type { Tenant } from '../../../lib/storageapi/index.ts';
import type { FanoutObserver } from './fanout.ts';

const tenantRequests = counter('tsdb_tenant_select_requests_total', 'Read requests, by tenant (the gateway\'s queries limit reads it)', ['accountID', 'projectID']);
const partialResponses = counter('tsdb_select_partial_responses_total', 'Answers that lacked more storage nodes than -replicationFactor covers: sent with "isPartial": true, or refused with 503 under -search.denyPartialResponse');

/** countTenantRequest counts one read request of a tenant in tsdb_tenant_select_requests_total. */
export function countTenantRequest(t: Tenant): void {
  tenantRequests.inc({ accountID: String(t.accountID), projectID: String(t.projectID) });
}

/** fanoutObserver records what the fan-out does in metrics, and node state changes in the log. */
export function fanoutObserver(logger: Logger): FanoutObserver {
  return {
    nodeDown: (node, err) => logger.warn({ err }, `storage node ${node} left rotation; answers lack its data until a re-check succeeds`),
    nodeUp: (node) => logger.info(`storage node ${node} is back in rotation`),
    partial: () => partialResponses.inc(),
  };
}
