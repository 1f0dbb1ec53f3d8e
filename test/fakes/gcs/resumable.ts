// Resumable uploads of the GCS fake: POST starts a session and answers with its URL in
// Location; PUTs carry byte ranges (Content-Range "bytes a-b/total", "a-*/total", "*/total"
// for a status query, total "*" while unknown); 308 with a Range header means "send more",
// 200 with the object resource means done.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, sendJson, type Ctx } from './http.ts';
import { objectResource, type StoredObject } from './store.ts';

/** ResumableSession is an upload in progress. */
export interface ResumableSession {
  readonly bucket: string;
  readonly name: string;
  readonly contentType: string;
  readonly chunks: Buffer[];
  length: number;
  done?: StoredObject;
}

const RANGE_RE = /^bytes (?:\*|(\d+)-(\d+|\*))\/(\d+|\*)$/;

/** handleResumable serves the session start and the chunk requests. */
export function handleResumable(ctx: Ctx, req: IncomingMessage, res: ServerResponse, bucket: string, q: URLSearchParams, body: Buffer): void {
  const id = q.get('upload_id');
  if (id === null) return start(ctx, req, res, bucket, q, body);
  const s = ctx.sessions.get(id);
  if (!s) throw new HttpError(404, `no upload session ${id}`);
  if (s.done) return sendJson(res, 200, objectResource(s.bucket, s.done));
  const header = req.headers['content-range'] ?? `bytes 0-*/${body.length}`;
  const m = RANGE_RE.exec(header);
  if (!m) throw new HttpError(400, `bad Content-Range "${header}"`);
  const total = m[3] === '*' ? undefined : Number(m[3]);
  if (m[1] !== undefined) {
    const from = Number(m[1]);
    if (from > s.length) return incomplete(res, s); // a gap: the client resends from our offset
    const fresh = body.subarray(s.length - from); // drop bytes we already have
    if (m[2] !== '*' && Number(m[2]) - from + 1 !== body.length) throw new HttpError(400, `Content-Range "${header}" does not match ${body.length} body bytes`);
    s.chunks.push(fresh);
    s.length += fresh.length;
    if (m[2] === '*' && total === undefined) return finish(ctx, res, s); // the rest of an object of unknown size
  }
  if (total !== undefined && s.length > total) throw new HttpError(400, `received ${s.length} bytes, more than the declared ${total}`);
  if (total !== undefined && s.length === total) return finish(ctx, res, s);
  incomplete(res, s);
}

function start(ctx: Ctx, req: IncomingMessage, res: ServerResponse, bucket: string, q: URLSearchParams, body: Buffer): void {
  const meta = body.length > 0 ? (JSON.parse(body.toString('utf8')) as { name?: string; contentType?: string }) : {};
  const name = q.get('name') ?? meta.name;
  if (!name) throw new HttpError(400, 'object name is required');
  const contentType = meta.contentType ?? String(req.headers['x-upload-content-type'] ?? 'application/octet-stream');
  const id = randomUUID();
  ctx.sessions.set(id, { bucket, name, contentType, chunks: [], length: 0 });
  const location = `${ctx.base}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=resumable&name=${encodeURIComponent(name)}&upload_id=${id}`;
  res.writeHead(200, { location, 'content-length': 0 }).end();
}

function finish(ctx: Ctx, res: ServerResponse, s: ResumableSession): void {
  s.done = ctx.store.put(s.bucket, s.name, Buffer.concat(s.chunks), s.contentType);
  sendJson(res, 200, objectResource(s.bucket, s.done));
}

function incomplete(res: ServerResponse, s: ResumableSession): void {
  res.writeHead(308, s.length > 0 ? { range: `bytes=0-${s.length - 1}`, 'content-length': 0 } : { 'content-length': 0 }).end();
}
