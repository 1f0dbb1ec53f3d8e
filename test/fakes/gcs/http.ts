// HTTP plumbing shared by the GCS fake's handlers.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResumableSession } from './resumable.ts';
import type { GcsStore } from './store.ts';

/** HttpError carries a status to the error responder. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Ctx is the shared state of the handlers. */
export interface Ctx {
  readonly store: GcsStore;
  readonly sessions: Map<string, ResumableSession>;
  readonly pageSize: number;
  base: string;
}

/** readBody buffers a request body. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** sendJson writes a JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
