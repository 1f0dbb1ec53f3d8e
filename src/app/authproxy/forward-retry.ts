// The retry/forward loop: send a request to the route's backends in balancer order until one
// answers, taking a failing backend out of rotation for -failTimeout.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardRestOfBody, forward, type normalizeRequestPath, QueryError, type RequestBody, sendPlain } from '../../lib/httpproxy/index.ts';
import type { Logger } from '../../lib/logger/index.ts';
import { upstreamPath } from './routing.ts';
import type { Route, Target, UserState } from './state.ts';

/** ForwardOptions are the flags the loop obeys, plus the injected clock and logger. */
export interface ForwardOptions {
  readonly maxRequestBodySizeToRetry: number;
  readonly failTimeoutMs: number;
  readonly responseTimeoutMs: number;
  /** responseWindowBytes caps response bytes buffered per request for a slow client (see forward). */
  readonly responseWindowBytes: number;
  readonly logger: Logger;
  /** now returns ms since the epoch (for -failTimeout). */
  readonly now: () => number;
}

/** ProxiedRequest is what the loop sends: the normalized path, the raw query, headers and body. */
export interface ProxiedRequest {
  readonly path: ReturnType<typeof normalizeRequestPath>;
  readonly query: string;
  readonly headers: string[];
  readonly body: RequestBody;
}

/**
 * forwardWithRetries answers res from the first of the route's backends that answers, and drops
 * what the client still sends of a streamed body afterwards. Never throws for a backend problem.
 */
export async function forwardWithRetries(o: ForwardOptions, user: UserState, route: Route, raw: IncomingMessage, res: ServerResponse, r: ProxiedRequest): Promise<void> {
  try {
    await tryBackends(o, user, route, raw, res, r);
  } finally {
    // A backend may answer before the body ended (a 413 for a body over its limit), or fail while
    // receiving it: the client still sends the rest, which is read and dropped so that it gets
    // to read the answer and its connection stays usable.
    if (r.body.kind === 'stream') discardRestOfBody(raw);
  }
}

async function tryBackends(o: ForwardOptions, user: UserState, route: Route, raw: IncomingMessage, res: ServerResponse, r: ProxiedRequest): Promise<void> {
  let tried: Set<Target> | undefined;
  let lastError: Error | undefined;
  const body = r.body.kind === 'none' ? null : r.body.kind === 'buffered' ? r.body.data : r.body.stream;
  for (;;) {
    const now = o.now();
    const t = route.balancer.pick(now, tried);
    if (t === undefined) break;
    let path: string;
    try {
      path = upstreamPath(route, t, r.path, r.query);
    } catch (err) {
      if (err instanceof QueryError) return sendPlain(res, 400, err.message);
      throw err;
    }
    t.load.begin();
    const result = await forward(t.pool, {
      path, method: raw.method ?? 'GET', headers: r.headers, body, timeoutMs: o.responseTimeoutMs, windowBytes: o.responseWindowBytes,
    }, res);
    t.load.end();
    if (result.kind !== 'failed') return;
    lastError = result.error;
    t.errors.inc();
    user.backendErrors.inc();
    if (isTimeout(result.error)) {
      o.logger.warn({ err: result.error }, `backend "${t.url.text}" did not answer within -responseTimeout=${o.responseTimeoutMs}ms`);
      return sendPlain(res, 502, `cannot proxy the request to "${t.url.text}": no response within -responseTimeout`);
    }
    if (result.bodyStarted && !result.requestSent) {
      // The backend stopped taking the body and closed the connection without an answer the
      // proxy could read. The body itself may be why (the backend refused it), so this does not
      // take the backend out of rotation: one client must not be able to do that. It cannot be
      // sent again either.
      o.logger.warn({ err: result.error }, `backend "${t.url.text}" closed the connection while receiving a request body`);
      return sendPlain(res, 502, `cannot proxy the request to "${t.url.text}": the backend closed the connection while receiving the request body: ${result.error.message}`);
    }
    t.load.markBroken(now + o.failTimeoutMs);
    o.logger.warn({ err: result.error }, `cannot proxy the request to "${t.url.text}"; skipping this backend for -failTimeout`);
    if (result.bodyStarted) {
      return sendPlain(res, 503, `cannot retry the request on another backend: its body (over -maxRequestBodySizeToRetry=${o.maxRequestBodySizeToRetry} bytes) was already sent`);
    }
    (tried ??= new Set()).add(t);
  }
  sendPlain(res, 502, `cannot proxy the request: all backends failed; last error: ${lastError?.message ?? 'none'}`);
}

function isTimeout(err: Error): boolean {
  const code = (err as { code?: string }).code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}
