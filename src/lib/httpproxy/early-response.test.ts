import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { earlyResponseConnector } from './early-response.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function pool(origin: string): Pool {
  const p = new Pool(origin, { connect: earlyResponseConnector(5000) });
  closers.push(() => p.destroy());
  return p;
}

// 8 MiB in 64 KiB chunks, far more than the sockets buffer.
const bigBody = () => Readable.from((function* () {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  for (let i = 0; i < 128; i++) yield chunk;
})());

/**
 * socketBody is a 16 MiB body arriving over another loopback connection, as a proxied client's
 * does: its chunks are written to the backend from that connection's read events, so a write can
 * fail before the backend connection's own read events (its answer) were handled.
 */
async function socketBody(): Promise<Socket> {
  const feeder = createServer();
  const port = Number(new URL(await listen(feeder)).port);
  const accepted = new Promise<Socket>((resolve) => feeder.once('connection', resolve));
  const c = connect(port, '127.0.0.1');
  c.on('error', () => {});
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  const pump = () => {
    while (sent < 16 << 20) {
      sent += chunk.length;
      if (!c.write(chunk)) return void c.once('drain', pump);
    }
    c.end();
  };
  pump();
  const s = await accepted;
  s.once('close', () => c.destroy());
  return s;
}

it('reads the answer of a server that refuses a body and closes the connection, every time', async () => {
  // Node's HTTP server answers without reading the body and closes the connection with the body
  // unread: its kernel resets the connection, and the client's next write of the body fails (with
  // undici's own connector every one of these requests fails with EPIPE).
  const server = createHttpServer((_req, res) => {
    res.writeHead(413, { connection: 'close' });
    res.end('too big!');
  });
  const p = pool(await listen(server));
  for (let i = 0; i < 10; i++) {
    const r = await p.request({ path: '/upload', method: 'POST', body: await socketBody() });
    expect([r.statusCode, await r.body.text()]).toEqual([413, 'too big!']);
  }
});

it('still fails a request to a server that resets the connection without an answer', async () => {
  const server = createServer((s) => {
    s.on('error', () => {});
    s.once('data', () => s.resetAndDestroy());
  });
  const p = pool(await listen(server));
  await expect(p.request({ path: '/upload', method: 'POST', body: bigBody() })).rejects.toThrow(/other side closed|ECONNRESET|EPIPE|closed/);
});

it('passes connection errors on and serves ordinary requests', async () => {
  const refused = pool('http://127.0.0.1:1');
  await expect(refused.request({ path: '/', method: 'GET' })).rejects.toThrow(/ECONNREFUSED/);
  const server = createHttpServer((req, res) => {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => res.end(`got ${n}`));
  });
  const p = pool(await listen(server));
  const r = await p.request({ path: '/', method: 'POST', body: bigBody() });
  expect([r.statusCode, await r.body.text()]).toEqual([200, `got ${8 * 1024 * 1024}`]);
});
