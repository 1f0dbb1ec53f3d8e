import { describe, expect, it } from 'vitest';
import { NodeUnavailableError } from '../storageapi/index.ts';
import { callNode, iterateNode, REAL_TIMERS } from './call.ts';

const never = <T>(): Promise<T> => new Promise<T>(() => {});

describe('callNode', () => {
  it('passes the answer through', async () => {
    expect(await callNode('n1', 'count', 1000, undefined, REAL_TIMERS, async () => 7)).toBe(7);
    await expect(callNode('n1', 'count', 1000, undefined, REAL_TIMERS, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
  });

  it('gives up on a peer that never answers and ignores its signal, with NodeUnavailableError', async () => {
    let seen: AbortSignal | undefined;
    const started = Date.now();
    const err = await callNode('n1', 'count series', 50, undefined, REAL_TIMERS, (s) => {
      seen = s;
      return never();
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeUnavailableError);
    expect((err as NodeUnavailableError).node).toBe('n1');
    expect((err as Error).message).toBe('cannot count series on storage node n1: no answer within 50 ms');
    expect(seen?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('settles with the caller\'s reason as soon as the caller aborts', async () => {
    const ac = new AbortController();
    const p = callNode('n1', 'count', 60_000, ac.signal, REAL_TIMERS, () => never());
    ac.abort(new Error('client left'));
    await expect(p).rejects.toThrow('client left');
    const pre = new AbortController();
    pre.abort(new Error('already gone'));
    await expect(callNode('n1', 'count', 60_000, pre.signal, REAL_TIMERS, async () => 1)).rejects.toThrow('already gone');
  });
});

describe('iterateNode', () => {
  async function* items(delays: number[], signal: AbortSignal): AsyncGenerator<number> {
    for (const [i, d] of delays.entries()) {
      await new Promise((r) => setTimeout(r, d));
      signal.throwIfAborted();
      yield i;
    }
  }

  it('reads a stream that keeps moving, however long it runs in total', async () => {
    const out: number[] = [];
    for await (const x of iterateNode('n1', 'search', 80, undefined, REAL_TIMERS, (s) => items([30, 30, 30, 30], s))) out.push(x);
    expect(out).toEqual([0, 1, 2, 3]);
  });

  it('fails a stream that stalls between items', async () => {
    const out: number[] = [];
    const err = await (async () => {
      for await (const x of iterateNode('n1', 'search', 50, undefined, REAL_TIMERS, (s) => items([0, 0, 10_000], s))) out.push(x);
    })().catch((e: unknown) => e);
    expect(out).toEqual([0, 1]);
    expect(err).toBeInstanceOf(NodeUnavailableError);
  });
});
