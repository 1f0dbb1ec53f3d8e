// The backup manager's route table (SPEC C "Backup manager API", DECISIONS.md "Backup manager").
// All routes fall under -httpAuth.* (the HTTP server applies it). Answers are JSON; failures are
// `{"error": "<message>"}` with the status of the error catalog.

import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../lib/logger/index.ts';
import type { BackupManagerApi } from './api-service.ts';
import { ApiError, toApiError } from './errors.ts';
import { parseLockRequest, parseRestoreRequest } from './request-body.ts';

/** MAX_BODY_BYTES bounds request bodies: the API only takes tiny JSON objects. */
export const MAX_BODY_BYTES = 64 * 1024;

type WildcardRequest = FastifyRequest<{ Params: { '*': string } }>;

/** backupManagerRoutes returns the fastify plugin serving the API over `api`. */
export function backupManagerRoutes(api: BackupManagerApi, logger: Logger): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    // Bodies are text whatever the Content-Type; request-body.ts parses them.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) => done(null, body));
    app.setErrorHandler(async (err, req, reply) => replyError(reply, fastifyError(err), req, logger));

    app.get('/api/v1/backups', async (_req, reply) => api.listBackups(abortOnClose(reply)));
    app.post('/api/v1/backups', async (_req, reply) => {
      api.startBackup();
      return reply.code(201).send({});
    });
    app.get('/api/v1/backups/*', async (req: WildcardRequest, reply) => api.getBackup(req.params['*'], abortOnClose(reply)));
    app.put('/api/v1/backups/*', async (req: WildcardRequest, reply) => {
      const { locked } = parseLockRequest(req.body as string | undefined);
      return api.setLocked(req.params['*'], locked, abortOnClose(reply));
    });

    app.post('/api/v1/restore', async (req, reply) => api.createRestoreMark(parseRestoreRequest(req.body as string | undefined).backup, abortOnClose(reply)));
    app.get('/api/v1/restore', async () => {
      const mark = await api.getRestoreMark();
      if (mark === undefined) throw new ApiError('not_found', 'restore mark not found');
      return mark;
    });
    app.delete('/api/v1/restore', async () => {
      await api.deleteRestoreMark();
      return {};
    });
  };
}

// fastify's own failures (a body over the limit, a malformed request) keep their 4xx status.
function fastifyError(err: unknown): ApiError {
  const status = (err as { statusCode?: number }).statusCode;
  if (err instanceof ApiError || status === undefined || status >= 500) return toApiError(err);
  const kind = status === 404 ? 'not_found' : status === 413 ? 'too_large' : 'bad_request';
  return new ApiError(kind, (err as Error).message, { cause: err });
}

async function replyError(reply: FastifyReply, e: ApiError, req: FastifyRequest, logger: Logger): Promise<FastifyReply> {
  if (e.status >= 500) logger.error({ err: e }, `cannot serve ${req.method} ${req.url.split('?')[0]}`);
  return reply.code(e.status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ error: e.message }));
}

// abortOnClose aborts listing and marker I/O when the client goes away before the answer.
function abortOnClose(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort(new Error('the client closed the connection'));
  });
  return ac.signal;
}
