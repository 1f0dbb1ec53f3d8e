// One client connection to a storage node: dial and handshake, then calls multiplexed by request
// id. Frames for an id the client no longer waits for (a call it cancelled) are dropped. Anything
// that breaks the connection fails every call on it with NodeUnavailableError.

import { connect, type Socket } from 'node:net';
import type { ByteWriter } from '../bytes/index.ts';
import { CorruptDataError } from '../bytes/index.ts';
import { NodeUnavailableError } from '../storageapi/errors.ts';
import { reader, readString, RpcProtocolError, writeString } from './codec.ts';
import { readError } from './errors-codec.ts';
import {
  finishFrame, type Frame, FrameDecoder, MAGIC, MAX_FRAME_BYTES, MIN_PROTOCOL_VERSION, newFrame, PROTOCOL_VERSION, SERVICE_NAMES, T_CALL, T_CANCEL,
  T_CREDIT, T_ERROR, T_HELLO, T_HELLO_OK, T_RESULT, T_SERIES,
} from './frame.ts';
import { clientMetrics } from './metrics.ts';
import type { ClientDictionary } from './rows-codec.ts';

/** HelloInfo is what the node announced in HELLO_OK. */
export interface HelloInfo {
  readonly version: number;
  readonly maxFrameBytes: number;
  readonly dictionaryBytes: number;
  readonly node: string;
}

/** Pending receives the frames of one call (RESULT, ERROR, SERIES) or the connection's end. */
export interface Pending {
  /** onFrame may throw RpcProtocolError/CorruptDataError for a body that does not decode. */
  onFrame(f: Frame): void;
  onClose(err: NodeUnavailableError): void;
}

/** parseNodeAddress splits "host:port", "[v6]:port" or ":port" (this host). */
export function parseNodeAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = Number(m?.[3]);
  if (m === null || port < 1 || port > 65535) throw new Error(`invalid storage node address ${JSON.stringify(address)}: expected host:port`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

export class ClientConnection {
  readonly address: string;
  readonly hello: HelloInfo;
  /** dictionary is the insert service's series dictionary of this connection (set by its client). */
  dictionary: ClientDictionary | undefined;
  readonly #socket: Socket;
  readonly #decoder: FrameDecoder;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #dead: NodeUnavailableError | undefined;
  /** lastReceived is when the node last sent bytes (performance.now()). */
  #lastReceived = performance.now();

  private constructor(address: string, socket: Socket, decoder: FrameDecoder, hello: HelloInfo) {
    this.address = address;
    this.#socket = socket;
    this.#decoder = decoder;
    this.hello = hello;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (err) => this.kill(this.#unavailable(`the connection failed: ${err.message}`, err)));
    socket.on('close', () => this.kill(this.#unavailable('the connection was closed')));
  }

  /** open dials address and runs the handshake for service within timeoutMs. Rejects with NodeUnavailableError. */
  static open(address: string, service: number, timeoutMs: number): Promise<ClientConnection> {
    const svc = SERVICE_NAMES[service]!;
    const m = clientMetrics();
    let host: string;
    let port: number;
    try {
      ({ host, port } = parseNodeAddress(address));
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      const decoder = new FrameDecoder(MAX_FRAME_BYTES);
      let settled = false;
      const fail = (why: string, cause?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        m.dials.inc({ node: address, result: 'error' });
        reject(new NodeUnavailableError(address, `cannot connect to the ${svc} port of storage node "${address}": ${why}`, { cause }));
      };
      const timer = setTimeout(() => fail(`no handshake within ${timeoutMs} ms`), timeoutMs);
      socket.once('error', (err) => fail(err.message, err));
      socket.once('close', () => fail('the node closed the connection during the handshake'));
      socket.once('connect', () => {
        socket.setNoDelay(true);
        socket.setKeepAlive(true, 30_000);
        const w = newFrame(T_HELLO, 0);
        w.writeBytes(Buffer.from(MAGIC, 'latin1'));
        w.writeUvarint(MIN_PROTOCOL_VERSION);
        w.writeUvarint(PROTOCOL_VERSION);
        w.writeU8(service);
        writeString(w, `strata ${svc} client`);
        socket.write(finishFrame(w));
      });
      const onData = (chunk: Buffer) => {
        try {
          decoder.push(chunk, (f) => {
            const r = reader(f.buf, 'HELLO_OK frame', f.bodyStart);
            if (f.type === T_ERROR && f.id === 0) throw readError(r, address);
            if (f.type !== T_HELLO_OK || f.id !== 0) throw new RpcProtocolError(`expected HELLO_OK, got frame type 0x${f.type.toString(16)}`);
            const version = r.readUvarint();
            if (version < MIN_PROTOCOL_VERSION || version > PROTOCOL_VERSION) throw new RpcProtocolError(`the node chose protocol version ${version}, this client speaks ${MIN_PROTOCOL_VERSION}..${PROTOCOL_VERSION}`);
            const hello: HelloInfo = { version, ...readHelloTail(r, service) };
            settled = true;
            clearTimeout(timer);
            socket.removeAllListeners();
            m.dials.inc({ node: address, result: 'ok' });
            resolve(new ClientConnection(address, socket, decoder, hello));
            return false;
          });
        } catch (err) {
          fail((err as Error).message, err);
        }
      };
      socket.on('data', onData);
    });
  }

  get dead(): boolean {
    return this.#dead !== undefined;
  }

  /** inFlight is the number of calls waiting for their last frame. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /**
   * startCall sends a CALL frame whose arguments build appends, and routes the call's frames to p.
   * Returns the request id. Throws NodeUnavailableError when the connection is gone, or what
   * build threw, or an Error when the request is larger than the node accepts.
   */
  startCall(method: number, timeoutMs: number, build: (w: ByteWriter) => void, p: Pending, sizeHint = 256): number {
    if (this.#dead) throw this.#dead;
    const id = this.#nextId++;
    const w = newFrame(T_CALL, id, sizeHint);
    w.writeU8(method);
    w.writeUvarint(timeoutMs);
    let frame: Buffer;
    try {
      build(w);
      frame = finishFrame(w);
      if (frame.length > this.hello.maxFrameBytes) throw new Error(`the request takes ${frame.length} bytes; storage node "${this.address}" accepts at most ${this.hello.maxFrameBytes}`);
    } catch (err) {
      // The frame is not sent: a dictionary that build extended must start over on both sides.
      this.dictionary?.forceReset();
      throw err;
    }
    this.#pending.set(id, p);
    this.#write(frame);
    return id;
  }

  /** cancel stops waiting for call id and tells the node to stop working on it. */
  cancel(id: number): void {
    if (!this.#pending.delete(id) || this.#dead) return;
    this.#write(finishFrame(newFrame(T_CANCEL, id, 0)));
  }

  /** credit grants call id's stream more bytes. */
  credit(id: number, bytes: number): void {
    if (!this.#pending.has(id) || this.#dead) return;
    const w = newFrame(T_CREDIT, id, 8);
    w.writeUvarint(bytes);
    this.#write(finishFrame(w));
  }

  #write(frame: Buffer): void {
    clientMetrics().sent.inc({ node: this.address }, frame.length);
    this.#socket.write(frame);
  }

  #onData(chunk: Buffer): void {
    if (this.#dead) return;
    this.#lastReceived = performance.now();
    clientMetrics().received.inc({ node: this.address }, chunk.length);
    try {
      this.#decoder.push(chunk, (f) => this.#onFrame(f));
    } catch (err) {
      if (err instanceof NodeUnavailableError) this.kill(err);
      else this.kill(this.#unavailable(`the node's answer breaks the protocol: ${(err as Error).message}`, err));
    }
  }

  #onFrame(f: Frame): boolean {
    if (this.#dead) return false;
    if (f.id === 0) {
      if (f.type !== T_ERROR) throw new RpcProtocolError(`unexpected frame type 0x${f.type.toString(16)} without a request id`);
      throw readError(reader(f.buf, 'ERROR frame', f.bodyStart), this.address);
    }
    if (f.type !== T_RESULT && f.type !== T_ERROR && f.type !== T_SERIES) throw new RpcProtocolError(`unexpected frame type 0x${f.type.toString(16)}`);
    const p = this.#pending.get(f.id);
    if (p === undefined) return true; // a call this client cancelled or gave up on
    if (f.type !== T_SERIES) this.#pending.delete(f.id);
    try {
      p.onFrame(f);
    } catch (err) {
      if (!(err instanceof RpcProtocolError || err instanceof CorruptDataError)) throw err;
      this.#pending.delete(f.id);
      const e = this.#unavailable(`the node's answer breaks the protocol: ${err.message}`, err);
      p.onClose(e);
      throw e;
    }
    return true;
  }

  #unavailable(why: string, cause?: unknown): NodeUnavailableError {
    return new NodeUnavailableError(this.address, `storage node "${this.address}": ${why}`, { cause });
  }

  /**
   * timedOut is told that a call started at `since` got no answer in time. When the node sent
   * nothing at all on this connection since then, the peer is taken for gone (a host that vanished
   * leaves a TCP connection open for many minutes) and the connection is closed, so the next call
   * dials again and fails fast if the node is really down.
   */
  timedOut(since: number): void {
    if (this.#lastReceived >= since) return;
    this.kill(this.#unavailable(`sent nothing for ${Math.round(performance.now() - since)} ms while a call waited; closing the connection`));
  }

  /** kill closes the connection, failing every call on it with err. */
  kill(err: NodeUnavailableError): void {
    if (this.#dead) return;
    this.#dead = err;
    this.#socket.destroy();
    const calls = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of calls) p.onClose(err);
  }
}

function readHelloTail(r: ReturnType<typeof reader>, service: number): Omit<HelloInfo, 'version'> {
  const got = r.readU8();
  if (got !== service) throw new RpcProtocolError(`the node answered for service ${got}, not ${service}`);
  // Later versions may append HELLO_OK fields: bytes after these are ignored.
  return { maxFrameBytes: r.readUvarint(), dictionaryBytes: r.readUvarint(), node: readString(r) };
}
