// A pass-through HTTP proxy in front of the S3 emulator for vmbackup/vmrestore only. fauxqs reads
// CompleteMultipartUpload bodies with two regular expressions, and aws-sdk-go v1 (which vmbackup
// 1.79 uses) defeats both: it writes the quotes around part ETags as `&#34;` (InvalidPart), and it
// orders the elements of each <Part> as Go's map iteration happens to, so a body mixing
// <ETag>-first and <PartNumber>-first parts makes fauxqs keep only some parts and store a
// truncated object. The proxy rewrites those bodies into the canonical form (the emulator checks
// no payload signatures). fauxqs also answers 500 to an empty PUT without a Content-Type (an
// empty file: it reads an undefined body), so such requests get `binary/octet-stream`.
// Everything else streams through unchanged.

import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** startEntityProxy forwards to `target` (http://host:port) and resolves with its own endpoint. */
export async function startEntityProxy(target: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    const forward = (body?: Buffer) => {
      // This proxy already answered the client's Expect: 100-continue; the emulator gets the body at once.
      const { expect: _expect, ...rest } = req.headers;
      const headers = {
        ...rest,
        ...(body ? { 'content-length': String(body.length) } : {}),
        ...(req.method === 'PUT' && rest['content-type'] === undefined ? { 'content-type': 'binary/octet-stream' } : {}),
      };
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
    req.on('end', () => forward(Buffer.from(canonicalComplete(Buffer.concat(chunks).toString('utf8')))));
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

// canonicalComplete rewrites every <Part> as <Part><PartNumber>n</PartNumber><ETag>"…"</ETag></Part>.
function canonicalComplete(xml: string): string {
  return xml.replaceAll('&#34;', '"').replace(/<Part>([\s\S]*?)<\/Part>/g, (whole, inner: string) => {
    const n = /<PartNumber>(\d+)<\/PartNumber>/.exec(inner)?.[1];
    const etag = /<ETag>([\s\S]*?)<\/ETag>/.exec(inner)?.[1];
    return n === undefined || etag === undefined ? whole : `<Part><PartNumber>${n}</PartNumber><ETag>${etag}</ETag></Part>`;
  });
}
