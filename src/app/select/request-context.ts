import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { formatDuration } from '../../lib/flags/index.ts';
import { ParseError as QueryParseError } from '../../lib/promql/index.ts';
import { QueryError } from '../../lib/query/index.ts';
import { LimitExceededError, MatcherError, NodeUnavailableError } from '../../lib/storageapi/index.ts';
import { answerSent } from './answer-buffer.ts';
import { QueueTimeoutError } from './concurrency.ts';
import type { SelectDeps } from './deps.ts';
import { ApiError, badData } from './errors.ts';
import { RequestParams } from './request-params.ts';
import { parseStepParam } from './time-params.ts';
import { timerMs } from '../../lib/timer/index.ts';

/** ReadContext is one read request in flight: its params, a signal that fires on timeout or disconnect, and its clock. */
export interface ReadContext {
  readonly params: RequestParams;
  readonly signal: AbortSignal;
  /** now is the request's time (ms), read once. */
  readonly now: number;
  readonly deps: SelectDeps;
  /** remoteAddr is the client's `ip:port` (for the record of running queries). */
  readonly remoteAddr?: string;
  /** partial, in a cluster, reports whether the request's answers so far lacked a storage node's data. */
  readonly partial?: () => boolean;
}

class TimeoutReason extends Error {}

/** ReadDeadline says which flag bounds a read route's duration. */
export interface ReadDeadline {
  readonly flag: string;
  readonly maxMs: (deps: SelectDeps) => number;
}

export const QUERY_DEADLINE: ReadDeadline = { flag: 'search.maxQueryDuration', maxMs: (d) => d.limits.maxQueryDurationMs };
export const EXPORT_DEADLINE: ReadDeadline = { flag: 'search.maxExportDuration', maxMs: (d) => d.limits.maxExportDurationMs };

/**
 * runRead runs a read handler inside a concurrency slot (-search.maxConcurrentRequests, queue up to
 * -search.maxQueueDuration → 429), with a deadline (-search.maxQueryDuration or a lower `timeout`
 * arg → 503) and cancellation when the client disconnects. Errors become the JSON error envelope.
 */
export async function runRead(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: SelectDeps,
  handler: (c: ReadContext) => Promise<unknown>,
  deadline: ReadDeadline = QUERY_DEADLINE,
): Promise<FastifyReply | void> {
  const params = new RequestParams(req.query, req.body);
  const ac = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) ac.abort(new Error('the client closed the connection'));
  };
  reply.raw.once('close', onClose);
  let timer: NodeJS.Timeout | undefined;
  let release: (() => void) | undefined;
  try {
    const scope = deps.scope?.(req, 'read');
    const timeoutMs = requestTimeout(params, deadline.maxMs(deps));
    timer = setTimeout(() => ac.abort(new TimeoutReason(`the request took longer than ${formatDuration(timeoutMs)}; see -${deadline.flag} and the timeout arg`)), timerMs(timeoutMs));
    release = await deps.limiter.acquire(deps.limits.maxQueueDurationMs, ac.signal);
    const port = req.socket.remotePort;
    const remoteAddr = port === undefined ? req.ip : `${req.ip}:${port}`;
    const out = await handler(scope === undefined
      ? { params, signal: ac.signal, now: deps.now(), deps, remoteAddr }
      : { params, signal: ac.signal, now: deps.now(), deps: { ...deps, tenant: scope.tenant, storage: scope.storage }, remoteAddr, partial: () => scope.isPartial() });
    if (out === undefined || reply.sent) return;
    if (isStream(out)) {
      // The handler rendered the first chunk before returning (StreamBody), so failures before
      // the first byte already got their error status above.
      void reply.type(out.contentType).send(out.stream);
      // The slot stays taken until the whole body is written.
      await finished(out.stream);
      return reply;
    }
    if (isRawJson(out)) {
      if (out.owned === true && Buffer.isBuffer(out.json)) freeWhenSent(reply, out.json);
      return reply.type('application/json').send(out.json);
    }
    return reply.send(scope === undefined ? out : withPartial(out, scope.isPartial()));
  } catch (err) {
    if (ac.signal.aborted && !(ac.signal.reason instanceof TimeoutReason)) return; // nobody is listening any more
    const e = toApiError(err, ac.signal);
    if (e.kind === 'internal') deps.logger.error({ err }, `cannot serve ${req.method} ${req.url.split('?')[0]}`);
    if (reply.raw.headersSent) {
      reply.raw.destroy(e);
      return;
    }
    return reply.code(e.status).send({ status: 'error', errorType: e.errorType, error: e.message });
  } finally {
    clearTimeout(timer);
    release?.();
    reply.raw.removeListener('close', onClose);
  }
}

/** withPartial adds the cluster's `isPartial` to a success envelope (DECISIONS.md "Success envelope"). */
function withPartial(out: unknown, isPartial: boolean): unknown {
  if (typeof out !== 'object' || out === null || (out as { status?: unknown }).status !== 'success') return out;
  return { ...out, isPartial };
}

function isStream(v: unknown): v is { stream: Readable; contentType: string } {
  return typeof v === 'object' && v !== null && 'stream' in v && 'contentType' in v;
}

/**
 * freeWhenSent hands body back to the answer memory (answer-buffer.ts) once the response is done:
 * written out ('finish': every byte was handed to the kernel, or to the compressor that already
 * wrote its output) it is reused for the next answer or freed at once, instead of when a full
 * garbage collection finds it (query answers of several MiB each otherwise piled up as garbage
 * between full collections, raising the resident memory during a query mix by tens of MiB).
 * body must be alone on its memory and referenced by nothing else (RawJson.owned).
 */
export function freeWhenSent(reply: FastifyReply, body: Buffer): void {
  const res = reply.raw;
  res.once('close', () => answerSent(body, res.writableFinished));
}

function isRawJson(v: unknown): v is { json: string | Buffer; owned?: boolean } {
  if (typeof v !== 'object' || v === null || !('json' in v)) return false;
  const json = (v as { json: unknown }).json;
  return typeof json === 'string' || Buffer.isBuffer(json);
}

function requestTimeout(params: RequestParams, max: number): number {
  const text = params.get('timeout');
  if (text === undefined || text === '') return max;
  let ms: number;
  try {
    ms = parseStepParam(text, 'timeout');
  } catch (err) {
    throw badData('timeout', err);
  }
  return Math.min(ms, max);
}

/** toApiError maps engine, storage and limiter failures onto the read-API error catalog. */
export function toApiError(err: unknown, signal?: AbortSignal): ApiError {
  if (err instanceof ApiError) return err;
  if (signal?.aborted === true && signal.reason instanceof TimeoutReason) return new ApiError('timeout', signal.reason.message, { cause: err });
  if (err instanceof QueryParseError) return new ApiError('bad_data', `cannot parse query: ${err.message}`, { cause: err });
  if (err instanceof QueryError) return new ApiError(err.kind, err.message, { cause: err });
  if (err instanceof LimitExceededError) {
    // The engines name flags with their dash ("-search.maxSeries"); accept both spellings.
    const flag = `-${err.flag}`;
    const msg = err.message.includes(flag) ? err.message : `${err.message}; see ${flag}`;
    return new ApiError('limit', msg, { cause: err });
  }
  if (err instanceof MatcherError) return new ApiError('bad_data', err.message, { cause: err });
  if (err instanceof QueueTimeoutError) return new ApiError('too_many_requests', err.message, { cause: err });
  if (err instanceof NodeUnavailableError) return new ApiError('unavailable', err.message, { cause: err });
  return new ApiError('internal', (err as Error)?.message ?? String(err), { cause: err });
}
