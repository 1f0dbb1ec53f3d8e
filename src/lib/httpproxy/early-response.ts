import type { Socket } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';
import { buildConnector } from './undici-core.ts';

type WriteCallback = (err?: Error | null) => void;
interface WritableInternals {
  _write(chunk: unknown, encoding: BufferEncoding, cb: WriteCallback): void;
  _writev?(chunks: Array<{ chunk: unknown; encoding: BufferEncoding }>, cb: WriteCallback): void;
}

// Errors of a write to a peer that has stopped reading: it reset the connection or closed it.
const PEER_STOPPED_READING = new Set(['EPIPE', 'ECONNRESET']);

/**
 * readResponseAfterWriteError keeps a backend connection reading after a write failed because the
 * backend stopped reading the request and reset the connection, until the read side ends.
 *
 * A server that refuses a request body (413 for a body over its limit, 401 before an upload) answers
 * before it has read the body and closes the connection; the unread bytes make its kernel reset the
 * connection, so the proxy's next write of the body fails with EPIPE or ECONNRESET. The answer
 * already sits in the proxy's receive buffer (Linux keeps it readable after a reset), but Node
 * destroys a socket on its first failed write, dropping what was received and not yet parsed, and
 * undici then reports a network failure instead of the backend's answer. Held this way, the failed
 * write completes only once the read side has ended (or the socket closed), so undici parses the
 * answer first; meanwhile later writes queue and the request body sees backpressure. Reading stops
 * with end of stream or an error, which after a reset comes right after the buffered bytes.
 */
export function readResponseAfterWriteError(socket: Socket): void {
  const s = socket as unknown as Socket & WritableInternals;
  const write = s._write;
  const writev = s._writev;
  s._write = function (chunk, encoding, cb) {
    write.call(this, chunk, encoding, holdPeerGone(s, cb));
  };
  if (writev !== undefined) {
    s._writev = function (chunks, cb) {
      writev.call(this, chunks, holdPeerGone(s, cb));
    };
  }
}

function holdPeerGone(socket: Socket, cb: WriteCallback): WriteCallback {
  return (err) => {
    const code = (err as NodeJS.ErrnoException | null | undefined)?.code;
    if (err == null || code === undefined || !PEER_STOPPED_READING.has(code) || socket.destroyed || socket.readableEnded) {
      cb(err);
      return;
    }
    const release = () => {
      socket.removeListener('end', release);
      socket.removeListener('close', release);
      cb(err);
    };
    socket.once('end', release);
    socket.once('close', release);
  };
}

/**
 * earlyResponseConnector is undici's connector (connectTimeoutMs bounds TCP and TLS setup) whose
 * sockets read a backend's early answer after a failed write (see readResponseAfterWriteError).
 */
export function earlyResponseConnector(connectTimeoutMs: number): BuildConnector.connector {
  const connect = buildConnector({ timeout: connectTimeoutMs });
  return (options, callback) => connect(options, (err, socket) => {
    // undici calls back with the error alone when the connection fails.
    if (err == null && socket != null) readResponseAfterWriteError(socket);
    (callback as (err: Error | null, socket: Socket | null | undefined) => void)(err, socket);
  });
}
