import { EventEmitter } from 'node:events';
import { type ServerResponse } from 'node:http';
import { setImmediate as tick } from 'node:timers/promises';
import { type Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { ClientGoneError, forward, type ForwardResult } from './forward.ts';

// A Node response and an undici dispatcher reduced to what forward uses, so each step of the
// handler can be driven by hand.
class FakeRes extends EventEmitter {
  writableLength = 0;
  writableNeedDrain = false;
  writableFinished = false;
  destroyed = false;
  headersSent = false;
  status = 0;
  headers: string[] = [];
  writes: string[] = [];
  /** callbacks of writes given one, oldest first (a test completes them). */
  callbacks: Array<(err?: Error | null) => void> = [];
  corked = 0;
  ended = false;
  writeHead(status: number, headers: string[]) {
    this.status = status;
    this.headers = headers;
    this.headersSent = true;
  }
  write(c: Buffer, cb?: (err?: Error | null) => void) {
    this.writes.push(c.toString());
    if (cb !== undefined) this.callbacks.push(cb);
    return true;
  }
  cork() {
    this.corked++;
  }
  uncork() {}
  end(c?: Buffer) {
    if (c !== undefined) this.writes.push(`end:${c.toString()}`);
    this.ended = true;
    this.writableFinished = true;
  }
  destroy() {
    this.destroyed = true;
  }
}

function drive(res: FakeRes) {
  let handler!: Dispatcher.DispatchHandler;
  const controller = { paused: false, aborted: undefined as Error | undefined,
    pause() { this.paused = true; }, resume() { this.paused = false; },
    abort(e: Error) { this.aborted = e; handler.onResponseError?.(controller as never, e); } };
  const dispatcher = { dispatch: (_o: unknown, h: Dispatcher.DispatchHandler) => { handler = h; return true; } } as unknown as Dispatcher;
  const result = forward(dispatcher, { path: '/', method: 'GET', headers: [], body: null, timeoutMs: 1000, windowBytes: 100 }, res as unknown as ServerResponse);
  const h = () => handler as Required<Dispatcher.DispatchHandler>;
  return { result, controller, h, c: controller as unknown as Dispatcher.DispatchController };
}

const buf = (s: string) => Buffer.from(s);

describe('forward', () => {
  it('writes the chunks of one event-loop turn together and a lone last chunk with end', async () => {
    const res = new FakeRes();
    const { result, h, c } = drive(res);
    h().onRequestStart(c, {});
    h().onResponseStart(c, 200, { 'content-type': 'text/plain', connection: 'keep-alive', 'keep-alive': 'timeout=5' });
    h().onResponseData(c, buf('a'));
    h().onResponseData(c, buf('b'));
    expect(res.writes).toEqual([]);
    await tick();
    expect([res.writes, res.corked]).toEqual([['a', 'b'], 1]);
    h().onResponseData(c, buf('c'));
    h().onResponseEnd(c, {});
    expect(res.writes).toEqual(['a', 'b', 'end:c']);
    expect([res.status, res.headers]).toEqual([200, ['content-type', 'text/plain']]);
    expect(await result).toEqual({ kind: 'responded', status: 200, error: undefined });
  });

  it('pauses the backend only while the client socket owes a drain event', async () => {
    const res = new FakeRes();
    const { h, c, controller } = drive(res);
    h().onRequestStart(c, {});
    h().onResponseStart(c, 200, {});
    // over the window but the socket will emit no drain: pausing here would stall for good
    res.writableLength = 90;
    h().onResponseData(c, buf('x'.repeat(20)));
    expect(controller.paused).toBe(false);
    res.writableNeedDrain = true;
    h().onResponseData(c, buf('y'.repeat(20)));
    expect(controller.paused).toBe(true);
    res.emit('drain');
    expect(controller.paused).toBe(false);
  });

  it('frees each relayed socket read buffer once the client socket took all of it and the parser moved on', async () => {
    const res = new FakeRes();
    const { result, h, c } = drive(res);
    h().onRequestStart(c, {});
    h().onResponseStart(c, 200, {});
    const a = new ArrayBuffer(64 * 1024);
    const b = new ArrayBuffer(64 * 1024);
    h().onResponseData(c, Buffer.from(a)); // over the window (100 bytes): written at once
    h().onResponseData(c, Buffer.from(b, 0, 1000));
    expect(res.callbacks.length).toBe(2);
    res.callbacks.shift()!();
    expect(a.detached).toBe(true);
    h().onResponseData(c, Buffer.from(b, 1000, 1000)); // more of the same read, after a pause
    res.callbacks.shift()!();
    expect(b.detached).toBe(false); // the parser may still hold the rest of b
    h().onResponseEnd(c, {});
    expect(b.detached).toBe(false); // write 3 is still in the socket
    res.emit('finish');
    expect(b.detached).toBe(true);
    expect(await result).toEqual({ kind: 'responded', status: 200, error: undefined });
  });

  it('leaves read buffers to the garbage collector when a write to the client fails', async () => {
    const res = new FakeRes();
    const { h, c } = drive(res);
    h().onRequestStart(c, {});
    h().onResponseStart(c, 200, {});
    const a = new ArrayBuffer(64 * 1024);
    const b = new ArrayBuffer(64 * 1024);
    h().onResponseData(c, Buffer.from(a));
    h().onResponseData(c, Buffer.from(b));
    res.callbacks.shift()!(new Error('write EPIPE'));
    res.callbacks.shift()!();
    expect([a.detached, b.detached]).toEqual([false, false]);
  });

  it('reports a failure before the response as retryable and leaves the response untouched', async () => {
    const res = new FakeRes();
    const { result, h, c } = drive(res);
    h().onResponseError(c, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const r = (await result) as Extract<ForwardResult, { kind: 'failed' }>;
    expect([r.kind, r.error.message]).toEqual(['failed', 'connect ECONNREFUSED']);
    expect([res.headersSent, res.destroyed]).toEqual([false, false]);
  });

  it('cuts the client connection when the backend fails mid-body', async () => {
    const res = new FakeRes();
    const { result, h, c } = drive(res);
    h().onResponseStart(c, 200, {});
    h().onResponseData(c, buf('partial'));
    h().onResponseError(c, new Error('other side closed'));
    expect(res.destroyed).toBe(true);
    expect((await result).kind).toBe('responded');
  });

  it('aborts the upstream request when the client leaves, even before it was dispatched', async () => {
    const res = new FakeRes();
    const { result, h, c, controller } = drive(res);
    res.emit('close');
    expect(await result).toEqual({ kind: 'client-gone' });
    h().onRequestStart(c, {});
    expect(controller.aborted).toBeInstanceOf(ClientGoneError);
  });
});
