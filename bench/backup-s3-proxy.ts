// A pass-through HTTP proxy in front of the S3 emulator for vmbackup/vmrestore only. fauxqs does
// not decode XML numeric character references, and aws-sdk-go v1 (which vmbackup 1.79 uses)
// writes the quotes around part ETags in CompleteMultipartUpload as `&#34;`, so every multipart
// upload of vmbackup fails with InvalidPart. The proxy rewrites `&#34;` to `"` in those request
// bodies (the emulator checks no payload signatures) and streams everything else unchanged.

import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** startEntityProxy forwards to `target` (http://host:port) and resolves with its own endpoint. */
export async function startEntityProxy(target: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    const forward = (body?: Buffer) => {
      const headers = { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
      const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers }, (r: IncomingMessage) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', (err) => res.destroy(err));
      if (body) up.end(body);
      else req.pipe(up);
    };
    const completesMultipart = req.method === 'POST' && /[?&]uploadId=/.test(req.url ?? '');
    if (!completesMultipart) return forward();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(Buffer.from(Buffer.concat(chunks).toString('utf8').replaceAll('&#34;', '"'))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}
