import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import { parseProxyHeader } from './proxy-protocol.ts';

/** ProxyListenerOptions configure a PROXY-protocol front for an HTTP(S) server. */
export interface ProxyListenerOptions {
  /** headerTimeoutMs closes connections that send no complete header in time. */
  readonly headerTimeoutMs: number;
  /** onReject is told why a connection was closed before reaching the HTTP server. */
  readonly onReject: (reason: string, peer: string) => void;
}

/**
 * createProxyProtocolListener returns a TCP server that reads a PROXY v1/v2 header from each
 * connection, makes the header's source address the socket's remoteAddress, and hands the
 * connection (with any bytes read past the header) to target. A missing, garbage or slow header
 * closes that connection only.
 */
export function createProxyProtocolListener(target: NetServer, isTls: boolean, o: ProxyListenerOptions): NetServer {
  if (isTls) (target as TlsServer).on('secureConnection', adoptAddressFromWrappedStream);
  return createServer((socket) => {
    let buf: Buffer = Buffer.alloc(0);
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    const reject = (reason: string) => {
      o.onReject(reason, peer);
      socket.destroy();
    };
    const timer = setTimeout(() => reject(`no complete PROXY protocol header within ${o.headerTimeoutMs}ms`), o.headerTimeoutMs);
    const onData = (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      const r = parseProxyHeader(buf);
      if (r.kind === 'incomplete') return;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.pause();
      if (r.kind === 'invalid') return reject(r.reason);
      const rest = buf.subarray(r.length);
      if (r.source !== undefined) setPeer(socket, r.source.address, r.source.port);
      handOff(target, socket, rest, isTls);
    };
    socket.on('data', onData);
    socket.on('error', () => clearTimeout(timer));
    socket.on('close', () => clearTimeout(timer));
  });
}

function setPeer(s: object, address: string, port: number): void {
  Object.defineProperty(s, 'remoteAddress', { value: address, configurable: true });
  Object.defineProperty(s, 'remotePort', { value: port, configurable: true });
}

function handOff(target: NetServer, socket: Socket, rest: Buffer, isTls: boolean): void {
  if (!isTls) {
    // The HTTP server reads the socket's JS stream, so unshifted bytes reach its parser first.
    if (rest.length > 0) socket.unshift(rest);
    target.emit('connection', socket);
    socket.resume();
    return;
  }
  // A TLS server reads a net.Socket's handle directly and would miss bytes already read into JS,
  // so it gets a plain duplex over the socket instead (TLS then runs over a JS stream).
  const d = new Duplex({
    read: () => void socket.resume(),
    write: (chunk, enc, cb) => void socket.write(chunk as Buffer, enc, cb),
    final: (cb) => {
      socket.end();
      cb();
    },
    destroy: (err, cb) => {
      socket.destroy(err ?? undefined);
      cb(err);
    },
  });
  setPeer(d, socket.remoteAddress ?? '', socket.remotePort ?? 0);
  if (rest.length > 0) d.push(rest);
  socket.on('data', (c: Buffer) => {
    if (!d.push(c)) socket.pause();
  });
  socket.on('end', () => d.push(null));
  socket.on('error', (e) => d.destroy(e));
  socket.on('close', () => d.destroy());
  target.emit('connection', d);
  socket.resume();
}

/**
 * adoptAddressFromWrappedStream copies the PROXY source address from the duplex a TLS socket wraps
 * onto the TLS socket, so request.socket.remoteAddress is the client's. The path to the wrapped
 * stream is Node's internal TLSWrap → JSStreamSocket link; the TLS + PROXY test guards it.
 */
function adoptAddressFromWrappedStream(tlsSocket: TLSSocket): void {
  const handle = (tlsSocket as unknown as { _handle?: { _parentWrap?: { stream?: { remoteAddress?: string; remotePort?: number } } } })._handle;
  const inner = handle?._parentWrap?.stream;
  if (inner?.remoteAddress !== undefined) setPeer(tlsSocket, inner.remoteAddress, inner.remotePort ?? 0);
}
