export { BALANCING_POLICIES, Balancer, type Backend, type BalancingPolicy } from './balancer.ts';
export { ClientGoneError, DEFAULT_WINDOW_BYTES, forward, type ForwardRequest, type ForwardResult } from './forward.ts';
export {
  downstreamResponseHeaders, extraHeaders, NO_EXTRA_HEADERS, upstreamRequestHeaders, type ExtraHeaders, type HeaderPair,
} from './headers.ts';
export { IpFilter, IpFilterError } from './ip-filter.ts';
export { PoolRegistry, type PoolOptions } from './pools.ts';
export { decodeArgName, forcedArgsFromSearch, mergeQueryArgs, NO_FORCED_ARGS, QueryError, type ForcedArgs } from './query-args.ts';
export { BodyReadError, BodyRelay, discardRestOfBody, prepareRequestBody, type RequestBody } from './request-body.ts';
export { earlyResponseConnector, readResponseAfterWriteError } from './early-response.ts';
export { sendPlain } from './responses.ts';
export { cleanPath, encodePath, normalizeRequestPath, PathError, type NormalizedPath } from './request-path.ts';
export { SharedSemaphore, type Acquisition } from './shared-semaphore.ts';
