// Errors of the storage contract, coded in the error catalog (docs/ERRORS.md). Implementations throw
// these classes on purpose; the cluster's network client (src/lib/storagerpc) re-creates
// LimitExceededError and MatcherError on its side with the same class and message, so the query
// side handles a remote storage node exactly as the in-process engine. NodeUnavailableError exists
// only on the network side. The apps map them to statuses (a limit is a 400 on writes, a 422 on reads).

import { CodedError, defineErrors } from '../errors/index.ts';

/** CODES is the storage contract's part of the catalog. */
const CODES = defineErrors({
  ERR_STORAGEAPI_LIMIT_EXCEEDED: {},
  ERR_STORAGEAPI_BAD_MATCHER: {},
  ERR_STORAGEAPI_NODE_UNAVAILABLE: {},
});

/**
 * LimitExceededError reports that a request would exceed a configured limit. `flag` names the
 * flag that sets the limit, without its leading dash ("search.maxUniqueTimeseries"; a dash given
 * by the thrower is removed), so the HTTP layer can tell the user which knob to turn (422 on reads).
 */
export class LimitExceededError extends CodedError {
  readonly flag: string;
  readonly limit: number;
  constructor(message: string, flag: string, limit: number, options?: ErrorOptions) {
    super(CODES.ERR_STORAGEAPI_LIMIT_EXCEEDED, message, options);
    this.flag = flag.replace(/^-+/, '');
    this.limit = limit;
  }
}

/** MatcherError reports a label matcher that cannot be evaluated (a bad regexp, an unknown type): the client's fault (400). */
export class MatcherError extends CodedError {
  constructor(message: string, options?: ErrorOptions) {
    super(CODES.ERR_STORAGEAPI_BAD_MATCHER, message, options);
  }
}

/**
 * NodeUnavailableError reports that a storage node could not be talked to: the connection was
 * refused or lost, the handshake failed, the node is shutting down, or a call timed out. It says
 * nothing about the request itself, so a cluster client may retry it on another node (writes) or
 * answer without that node (reads, marked partial). `node` is the node's address ("host:port").
 */
export class NodeUnavailableError extends CodedError {
  readonly node: string;
  constructor(node: string, message: string, options?: ErrorOptions) {
    super(CODES.ERR_STORAGEAPI_NODE_UNAVAILABLE, message, options);
    this.node = node;
  }
}
