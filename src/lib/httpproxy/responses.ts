import type { ServerResponse } from 'node:http';

/**
 * sendPlain writes a plain-text response directly on the Node response (used after the fastify
 * reply was hijacked for streaming). Does nothing if headers were already sent or the client left.
 */
export function sendPlain(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
