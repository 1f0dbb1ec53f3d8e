// Request bodies of the backup manager API. Bodies are read as text whatever the Content-Type
// (curl -d sends form encoding), then parsed here, so every malformed body is a clear 400.

import { ApiError } from './errors.ts';

/** LockRequest is the body of PUT /api/v1/backups/<name>. */
export interface LockRequest {
  readonly locked: boolean;
}

/** RestoreRequest is the body of POST /api/v1/restore (SPEC C2). */
export interface RestoreRequest {
  /** backup is a name relative to -dst or a full backup URL. */
  readonly backup: string;
}

/** parseLockRequest parses `{"locked": true|false}`; anything else throws ApiError 'bad_request'. */
export function parseLockRequest(body: string | undefined): LockRequest {
  const o = parseObject(body, '{"locked": true|false}');
  if (typeof o.locked !== 'boolean') throw new ApiError('bad_request', 'request body must be JSON {"locked": true|false}: "locked" must be a boolean');
  return { locked: o.locked };
}

/** parseRestoreRequest parses `{"backup": "<name or URL>"}`; anything else throws ApiError 'bad_request'. */
export function parseRestoreRequest(body: string | undefined): RestoreRequest {
  const o = parseObject(body, '{"backup": "<backup name or URL>"}');
  if (typeof o.backup !== 'string' || o.backup.trim() === '') {
    throw new ApiError('bad_request', 'request body must be JSON {"backup": "<backup name or URL>"}: "backup" must be a non-empty string');
  }
  return { backup: o.backup.trim() };
}

function parseObject(body: string | undefined, shape: string): Record<string, unknown> {
  if (body === undefined || body.trim() === '') throw new ApiError('bad_request', `missing request body; send JSON ${shape}`);
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (err) {
    throw new ApiError('bad_request', `cannot parse request body as JSON ${shape}: ${(err as Error).message}`, { cause: err });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ApiError('bad_request', `request body must be a JSON object ${shape}`);
  return v as Record<string, unknown>;
}
