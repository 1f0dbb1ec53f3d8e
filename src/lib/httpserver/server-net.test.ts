import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, testCert, testdataPath } from './server.test-helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(o: Parameters<typeof startTestServer>[0] = {}) {
  const s = await startTestServer(o);
  cleanups.push(s.stop);
  return s;
}

function tempCertFiles(name: 'a' | 'b') {
  const dir = mkdtempSync(join(tmpdir(), 'strata-tls-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  const use = (n: 'a' | 'b') => {
    copyFileSync(testdataPath(`${n}.key`), keyFile);
    copyFileSync(testdataPath(`${n}.crt`), certFile);
  };
  use(name);
  return { certFile, keyFile, use };
}

function peerCN(port: number, extra: { maxVersion?: 'TLSv1.2' } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...extra }, () => {
      const cert: PeerCertificate = s.getPeerCertificate();
      s.end();
      resolve(String(cert.subject.CN));
    });
    s.on('error', reject);
  });
}

/** rawExchange writes bytes on a fresh TCP connection and returns everything read until close. */
function rawExchange(port: number, data: Buffer | string): Promise<string> {
  return new Promise((resolve) => {
    const sock: Socket = netConnect(port, '127.0.0.1', () => sock.write(data));
    let out = '';
    sock.on('data', (d) => (out += d.toString()));
    sock.on('close', () => resolve(out));
    sock.on('error', () => undefined);
  });
}

describe('TLS', () => {
  it('serves HTTPS and picks up a rotated certificate without a restart', async () => {
    const files = tempCertFiles('a');
    const s = await start({ tls: { ...files, minVersion: '', cipherSuites: [] } });
    expect(await peerCN(s.port)).toBe('strata-test-a');
    files.use('b');
    await new Promise((r) => setTimeout(r, 1600));
    expect(await peerCN(s.port)).toBe('strata-test-b');
  });

  it('refuses clients below -tlsMinVersion', async () => {
    const files = tempCertFiles('a');
    const s = await start({ tls: { ...files, minVersion: 'TLS13', cipherSuites: [] } });
    await expect(peerCN(s.port, { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    expect(await peerCN(s.port)).toBe('strata-test-a');
  });

  it('keeps the previous certificate when the new files are broken', async () => {
    const files = tempCertFiles('a');
    const s = await start({ tls: { ...files, minVersion: '', cipherSuites: [] } });
    copyFileSync(testdataPath('README.md'), files.certFile);
    await new Promise((r) => setTimeout(r, 1300));
    expect(await peerCN(s.port)).toBe('strata-test-a');
    expect(s.logs.some((l) => l.includes('cannot reload TLS certificate'))).toBe(true);
  });
});

describe('PROXY protocol', () => {
  it('takes the client address from v1 and v2 headers', async () => {
    const s = await start({ useProxyProtocol: true });
    const v1 = await rawExchange(s.port, 'PROXY TCP4 203.0.113.9 10.0.0.1 4000 80\r\nGET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(v1).toContain('ip=203.0.113.9');
    const sig = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0x00, 0x0c]);
    const addrs = Buffer.from([198, 51, 100, 4, 10, 0, 0, 1, 0x0f, 0xa0, 0x00, 0x50]);
    const v2 = await rawExchange(s.port, Buffer.concat([sig, addrs, Buffer.from('GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]));
    expect(v2).toContain('ip=198.51.100.4');
  });

  it('closes connections with a garbage header and keeps serving others', async () => {
    const s = await start({ useProxyProtocol: true });
    expect(await rawExchange(s.port, 'GET /echo HTTP/1.1\r\nHost: x\r\n\r\n')).toBe('');
    expect(await rawExchange(s.port, 'PROXY TCP4 nonsense\r\n')).toBe('');
    expect(await rawExchange(s.port, Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x99, 0x11, 0, 0]))).toBe('');
    expect(s.logs.filter((l) => l.includes('closed connection from')).length).toBe(3);
    expect(await rawExchange(s.port, 'PROXY TCP4 192.0.2.5 10.0.0.1 1 2\r\nGET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toContain('ip=192.0.2.5');
  });

  it('works in front of TLS', async () => {
    const files = tempCertFiles('a');
    const s = await start({ useProxyProtocol: true, tls: { ...files, minVersion: '', cipherSuites: [] } });
    const body = await new Promise<string>((resolve, reject) => {
      const raw = netConnect(s.port, '127.0.0.1', () => {
        raw.write('PROXY TCP4 192.0.2.77 10.0.0.1 5555 443\r\n');
        const t = tlsConnect({ socket: raw, ca: testCert('a'), servername: 'localhost' }, () => t.write('GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
        let b = '';
        t.on('data', (d: Buffer) => (b += d.toString()));
        t.on('close', () => resolve(b));
        t.on('error', reject);
      });
    });
    expect(body).toContain('ip=192.0.2.77');
  });
});

describe('connection lifetime', () => {
  it('retires a keep-alive connection after -http.connTimeout with Connection: close on its next response', async () => {
    // Ending an idle connection at the deadline would race a request the client may already have
    // sent on it ("socket hang up"); the connection stays open and its next answer closes it.
    const s = await start({ connTimeoutMs: 300 });
    const sock = netConnect(s.port, '127.0.0.1');
    let text = '';
    let closedAt = 0;
    const opened = Date.now();
    const closed = new Promise<void>((r) => sock.on('close', () => {
      closedAt = Date.now();
      r();
    }));
    sock.on('data', (d: Buffer) => (text += d.toString()));
    sock.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 600));
    expect(sock.destroyed).toBe(false);
    sock.write('GET /echo HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    const [first, second, ...rest] = text.split(/(?=HTTP\/1\.1 )/);
    expect(rest).toEqual([]);
    expect(first!.toLowerCase()).toContain('connection: keep-alive');
    expect(second).toMatch(/^HTTP\/1\.1 200/);
    expect(second!.toLowerCase()).toContain('connection: close');
    expect(closedAt - opened).toBeLessThan(3000);
  });

  it('lets an in-flight request finish and then closes with Connection: close', async () => {
    const s = await start({ connTimeoutMs: 100 });
    const out = await rawExchange(s.port, 'GET /slow?ms=400 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(out).toContain('slow done');
    expect(out.toLowerCase()).toContain('connection: close');
  });

  it('covers replies that bypass fastify (hijacked streams) too', async () => {
    const s = await start({ connTimeoutMs: 100 });
    const out = await rawExchange(s.port, 'GET /hijacked?ms=400 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(out).toContain('hijacked done');
    expect(out.toLowerCase()).toContain('connection: close');
  });
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests and then refuses new connections', async () => {
    const s = await startTestServer({ maxGracefulShutdownMs: 3000 });
    const inFlight = request(`${s.base}/slow?ms=500`).then((r) => r.body.text());
    await new Promise((r) => setTimeout(r, 100));
    const closing = s.stop();
    expect(await inFlight).toBe('slow done');
    await closing;
    await expect(request(`${s.base}/health`)).rejects.toThrow();
  });

  it('cuts requests still running after -http.maxGracefulShutdownDuration', async () => {
    const s = await startTestServer({ maxGracefulShutdownMs: 200 });
    const agent = new Agent();
    const inFlight = request(`${s.base}/slow?ms=5000`, { dispatcher: agent }).then((r) => r.body.text());
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await s.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(inFlight).rejects.toThrow();
    await agent.close();
  });
});
