// A small GCS JSON-API server for tests: exactly what @google-cloud/storage uses for backups.
// Bucket get; object insert (multipart, media and resumable uploads, chunked or not), get
// metadata, download (alt=media, with x-goog-hash), list (prefix, delimiter, pageToken),
// delete, copyTo and rewriteTo. No authentication; state in memory; listens on 127.0.0.1.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundaryOf, parseMultipart } from './multipart.ts';
import { GcsStore, objectResource, type StoredObject } from './store.ts';
import { handleResumable, type ResumableSession } from './resumable.ts';
import { HttpError, readBody, sendJson, type Ctx } from './http.ts';

/** GcsFakeOptions configures startGcsFake. */
export interface GcsFakeOptions {
  readonly buckets?: readonly string[];
  /** pageSize caps list pages (the SDK's maxResults is honoured below it); default 1000. */
  readonly pageSize?: number;
}

/** GcsFake is a running fake. */
export interface GcsFake {
  /** endpoint is the apiEndpoint to give the SDK, as http://127.0.0.1:PORT. */
  readonly endpoint: string;
  readonly store: GcsStore;
  /** requests logs "METHOD path" of every request, with the Content-Range of upload chunks. */
  readonly requests: string[];
  stop(): Promise<void>;
}

/** startGcsFake starts a fake on a free port of 127.0.0.1. */
export async function startGcsFake(opts: GcsFakeOptions = {}): Promise<GcsFake> {
  const store = new GcsStore();
  for (const b of opts.buckets ?? []) store.createBucket(b);
  const sessions = new Map<string, ResumableSession>();
  const requests: string[] = [];
  const ctx = { store, sessions, pageSize: opts.pageSize ?? 1000, base: '' };
  const server = createServer((req, res) => {
    const range = req.headers['content-range'];
    requests.push(range ? `${req.method} ${req.url} content-range=${range}` : `${req.method} ${req.url}`);
    handle(ctx, req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      sendJson(res, status, { error: { code: status, message: (err as Error).message, errors: [{ message: (err as Error).message, domain: 'global', reason: status === 404 ? 'notFound' : 'invalid' }] } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ctx.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint: ctx.base,
    store,
    requests,
    stop: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((err) => (err ? reject(err) : resolve()));
    }),
  };
}

async function handle(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const seg = url.pathname.split('/').slice(1).map(decodeURIComponent);
  const q = url.searchParams;
  const body = await readBody(req);
  if (seg[0] === 'upload' && seg[1] === 'storage' && seg[3] === 'b' && seg[5] === 'o' && seg.length === 6) {
    bucketOf(ctx, seg[4]);
    return upload(ctx, req, res, seg[4] as string, q, body);
  }
  if (seg[0] !== 'storage' || seg[1] !== 'v1' || seg[2] !== 'b' || seg[3] === undefined) throw new HttpError(400, `the GCS fake has no route ${req.method} ${url.pathname}`);
  const bucket = seg[3];
  const objects = bucketOf(ctx, bucket);
  if (seg.length === 4 && req.method === 'GET') return sendJson(res, 200, { kind: 'storage#bucket', id: bucket, name: bucket });
  if (seg.length === 5 && seg[4] === 'o' && req.method === 'GET') return sendJson(res, 200, list(ctx, bucket, q));
  if (seg.length === 6 && seg[4] === 'o') return objectRoute(ctx, req, res, bucket, seg[5] as string, q);
  if (seg.length === 11 && seg[4] === 'o' && (seg[6] === 'copyTo' || seg[6] === 'rewriteTo') && seg[7] === 'b' && seg[9] === 'o' && req.method === 'POST') {
    const src = objects.get(seg[5] as string);
    if (!src) throw new HttpError(404, `No such object: ${bucket}/${seg[5]}`);
    const dstBucket = seg[8] as string;
    bucketOf(ctx, dstBucket);
    const resource = objectResource(dstBucket, ctx.store.put(dstBucket, seg[10] as string, src.data, src.contentType));
    if (seg[6] === 'copyTo') return sendJson(res, 200, resource);
    const size = String(src.data.length);
    return sendJson(res, 200, { kind: 'storage#rewriteResponse', totalBytesRewritten: size, objectSize: size, done: true, resource });
  }
  throw new HttpError(400, `the GCS fake has no route ${req.method} ${url.pathname}`);
}

function objectRoute(ctx: Ctx, req: IncomingMessage, res: ServerResponse, bucket: string, name: string, q: URLSearchParams): void {
  const objects = bucketOf(ctx, bucket);
  const obj = objects.get(name);
  if (!obj) throw new HttpError(404, `No such object: ${bucket}/${name}`);
  if (req.method === 'DELETE') {
    objects.delete(name);
    res.writeHead(204).end();
    return;
  }
  if (req.method !== 'GET') throw new HttpError(405, `method ${req.method} not allowed`);
  if (q.get('alt') !== 'media') return sendJson(res, 200, objectResource(bucket, obj));
  res.writeHead(200, {
    'content-type': obj.contentType,
    'content-length': obj.data.length,
    'x-goog-hash': `crc32c=${obj.crc32c},md5=${obj.md5}`,
    'x-goog-stored-content-encoding': 'identity',
    'x-goog-generation': String(obj.generation),
  });
  res.end(obj.data);
}

function upload(ctx: Ctx, req: IncomingMessage, res: ServerResponse, bucket: string, q: URLSearchParams, body: Buffer): void {
  const type = q.get('uploadType');
  if (type === 'resumable' || q.has('upload_id')) return handleResumable(ctx, req, res, bucket, q, body);
  if (type === 'media') {
    const name = requireName(q.get('name'));
    return sendJson(res, 200, objectResource(bucket, ctx.store.put(bucket, name, body, req.headers['content-type'] ?? 'application/octet-stream')));
  }
  if (type !== 'multipart') throw new HttpError(400, `unsupported uploadType ${type}`);
  const boundary = boundaryOf(req.headers['content-type']);
  if (!boundary) throw new HttpError(400, 'multipart upload without a boundary');
  const [meta, content] = parseMultipart(body, boundary);
  if (!meta || !content) throw new HttpError(400, 'multipart upload needs metadata and media parts');
  const metadata = JSON.parse(meta.body.toString('utf8') || '{}') as { name?: string; contentType?: string };
  const name = requireName(q.get('name') ?? metadata.name ?? null);
  const ct = metadata.contentType ?? content.headers['content-type'] ?? 'application/octet-stream';
  sendJson(res, 200, objectResource(bucket, ctx.store.put(bucket, name, content.body, ct)));
}

function list(ctx: Ctx, bucket: string, q: URLSearchParams): Record<string, unknown> {
  const objects = bucketOf(ctx, bucket);
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const after = q.has('pageToken') ? Buffer.from(q.get('pageToken') ?? '', 'base64url').toString('utf8') : '';
  const max = Math.min(ctx.pageSize, Number(q.get('maxResults')) || ctx.pageSize);
  const names = [...objects.keys()].filter((n) => n.startsWith(prefix) && n > after).sort();
  const items: string[] = [];
  const prefixes = new Set<string>();
  let consumed = 0;
  for (const n of names) {
    if (items.length + prefixes.size >= max) break;
    consumed++;
    const cut = delimiter ? n.indexOf(delimiter, prefix.length) : -1;
    if (cut >= 0) prefixes.add(n.slice(0, cut + delimiter.length));
    else items.push(n);
  }
  const last = names[consumed - 1];
  return {
    kind: 'storage#objects',
    items: items.map((n) => objectResource(bucket, objects.get(n) as StoredObject)),
    ...(prefixes.size > 0 ? { prefixes: [...prefixes] } : {}),
    ...(consumed < names.length && last !== undefined ? { nextPageToken: Buffer.from(last).toString('base64url') } : {}),
  };
}

function bucketOf(ctx: Ctx, name: string | undefined): Map<string, StoredObject> {
  const b = ctx.store.bucket(name ?? '');
  if (!b) throw new HttpError(404, `The specified bucket does not exist: ${name}`);
  return b;
}

function requireName(name: string | null): string {
  if (!name) throw new HttpError(400, 'object name is required');
  return name;
}
