// A RemoteFs wrapper for tests: records every call and fails the ones a test chooses, either
// before the call reaches the inner store or in the middle of a transfer.

import { Readable } from 'node:stream';
import type { RemoteFile, RemoteFs } from '../remote-fs.ts';

/** RemoteOp names a RemoteFs method. */
export type RemoteOp = 'list' | 'upload' | 'copy' | 'delete' | 'read' | 'readFile' | 'writeFile' | 'hasFile';

/** RemoteCall is one recorded call; `n` counts calls of the same op from 1. */
export interface RemoteCall {
  readonly op: RemoteOp;
  readonly path: string;
  readonly n: number;
  /** size is the declared size of an upload. */
  readonly size?: number;
}

/**
 * Fault is what an injector returns for a call it wants to fail: the error, and whether to
 * raise it mid-transfer (after the first chunk of an upload body or a read stream) instead of
 * before the call.
 */
export interface Fault {
  readonly error: Error;
  readonly midStream?: boolean;
}

/** FaultInjector decides per call; undefined lets the call through. */
export type FaultInjector = (call: RemoteCall) => Fault | undefined;

/** FaultyRemote forwards to `inner`, recording calls and injecting faults. */
export class FaultyRemote implements RemoteFs {
  readonly url: string;
  readonly calls: RemoteCall[] = [];
  readonly #inner: RemoteFs;
  #inject: FaultInjector;
  readonly #counts = new Map<RemoteOp, number>();

  constructor(inner: RemoteFs, inject: FaultInjector = () => undefined) {
    this.#inner = inner;
    this.#inject = inject;
    this.url = inner.url;
  }

  /** setInjector replaces the fault injector (undefined = no faults). */
  setInjector(inject: FaultInjector | undefined): void {
    this.#inject = inject ?? (() => undefined);
  }

  /** callsOf returns the recorded calls of one op. */
  callsOf(op: RemoteOp): RemoteCall[] {
    return this.calls.filter((c) => c.op === op);
  }

  async list(dir: string, signal?: AbortSignal): Promise<RemoteFile[]> {
    this.#before('list', dir);
    return this.#inner.list(dir, signal);
  }

  async upload(path: string, body: Readable, size: number, signal?: AbortSignal): Promise<void> {
    const fault = this.#record('upload', path, size);
    if (fault && !fault.midStream) {
      body.destroy();
      throw fault.error;
    }
    return this.#inner.upload(path, fault ? failAfterFirstChunk(body, fault.error) : body, size, signal);
  }

  async copy(srcPath: string, dstPath: string, signal?: AbortSignal): Promise<void> {
    this.#before('copy', dstPath);
    return this.#inner.copy(srcPath, dstPath, signal);
  }

  async delete(path: string, signal?: AbortSignal): Promise<void> {
    this.#before('delete', path);
    return this.#inner.delete(path, signal);
  }

  async read(path: string, signal?: AbortSignal): Promise<Readable> {
    const fault = this.#record('read', path);
    if (fault && !fault.midStream) throw fault.error;
    const stream = await this.#inner.read(path, signal);
    return fault ? failAfterFirstChunk(stream, fault.error) : stream;
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Buffer | undefined> {
    this.#before('readFile', path);
    return this.#inner.readFile(path, signal);
  }

  async writeFile(path: string, data: Buffer | string, signal?: AbortSignal): Promise<void> {
    this.#before('writeFile', path);
    return this.#inner.writeFile(path, data, signal);
  }

  async hasFile(path: string, signal?: AbortSignal): Promise<boolean> {
    this.#before('hasFile', path);
    return this.#inner.hasFile(path, signal);
  }

  async close(): Promise<void> {
    return this.#inner.close();
  }

  #before(op: RemoteOp, path: string): void {
    const fault = this.#record(op, path);
    if (fault) throw fault.error;
  }

  #record(op: RemoteOp, path: string, size?: number): Fault | undefined {
    const n = (this.#counts.get(op) ?? 0) + 1;
    this.#counts.set(op, n);
    const call: RemoteCall = size === undefined ? { op, path, n } : { op, path, n, size };
    this.calls.push(call);
    return this.#inject(call);
  }
}

// failAfterFirstChunk passes the first chunk of `src` and then fails. It is pull-based: `src`
// is read, and the fault raised, only while a consumer reads the returned stream, so the error
// always reaches that consumer. A push-based pipe would run the transform as soon as data
// flowed and could emit 'error' before the backend attached its listener (an uncaught
// exception). Destroying the returned stream destroys `src`.
function failAfterFirstChunk(src: Readable, error: Error): Readable {
  async function* failing(): AsyncGenerator<Buffer> {
    let passed = false;
    for await (const chunk of src as AsyncIterable<Buffer>) {
      if (passed) throw error;
      passed = true;
      yield chunk;
    }
    throw error; // a one-chunk body still fails: the fault must happen
  }
  const out = Readable.from(failing(), { objectMode: false });
  out.once('close', () => src.destroy());
  return out;
}
