import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReadBufferRelease } from './read-buffers.ts';

const read = (bytes = 64 * 1024) => new ArrayBuffer(bytes);
const view = (ab: ArrayBuffer, offset = 0, length = 1024) => Buffer.from(ab, offset, length);

describe('ReadBufferRelease', () => {
  it('frees a buffer once its writes completed and the parser moved to another buffer', () => {
    const r = new ReadBufferRelease();
    const a = read();
    const b = read();
    r.chunk(view(a));
    const w1 = r.wrote();
    r.written(w1);
    expect(a.detached).toBe(false); // the parser may still hold the rest of a
    r.chunk(view(b));
    expect(a.detached).toBe(true);
    expect(b.detached).toBe(false);
    const w2 = r.wrote();
    r.ended();
    expect(w2).toBe(2);
    expect(b.detached).toBe(true);
  });

  it('keeps a buffer while a later write still carries a view of it', () => {
    const r = new ReadBufferRelease();
    const a = read();
    const b = read();
    r.chunk(view(a, 0));
    const w1 = r.wrote();
    r.chunk(view(a, 1024)); // the same read, parsed after a pause: carried by write 2
    r.chunk(view(b));
    const w2 = r.wrote();
    r.written(w1);
    expect(a.detached).toBe(false);
    r.written(w2);
    expect(a.detached).toBe(true);
    expect(b.detached).toBe(false);
  });

  it('leaves small buffers (Buffer pool slabs) and abandoned responses to the garbage collector', () => {
    const r = new ReadBufferRelease();
    const slab = read(8192);
    r.chunk(view(slab, 0, 100));
    expect(r.holds).toBe(false);
    const a = read();
    r.chunk(view(a));
    r.wrote();
    r.abandon();
    r.ended();
    expect(a.detached).toBe(false);
    expect(slab.detached).toBe(false);
  });

  // Any order of chunk arrivals (new read or more of the current one), flushes, in-order write
  // completions and the end: a buffer is freed only when no view of it is unwritten and the parser
  // holds none of it, and at the end (all writes done) every buffer is freed.
  it('never frees a buffer that a pending write or the parser still holds', () => {
    type Step = 'new' | 'same' | 'flush' | 'complete';
    fc.assert(fc.property(fc.array(fc.constantFrom<Step>('new', 'same', 'flush', 'complete'), { maxLength: 60 }), (steps) => {
      const r = new ReadBufferRelease();
      const buffers: ArrayBuffer[] = [];
      const unflushed: ArrayBuffer[] = [];
      const inWrite: Array<{ seq: number; held: ArrayBuffer[] }> = [];
      let current: ArrayBuffer | undefined;
      const check = () => {
        for (const ab of buffers) {
          const held = ab === current || unflushed.includes(ab) || inWrite.some((w) => w.held.includes(ab));
          if (held) expect(ab.detached).toBe(false);
        }
      };
      for (const s of steps) {
        if (s === 'new' || (s === 'same' && current === undefined)) {
          current = read();
          buffers.push(current);
        }
        if (s === 'new' || s === 'same') {
          r.chunk(view(current!));
          unflushed.push(current!);
        } else if (s === 'flush' && unflushed.length > 0) {
          inWrite.push({ seq: r.wrote(), held: unflushed.splice(0) });
        } else if (s === 'complete' && inWrite.length > 0) {
          r.written(inWrite.shift()!.seq);
        }
        check();
      }
      if (unflushed.length > 0) r.wrote();
      r.ended();
      for (const ab of buffers) expect(ab.detached).toBe(true);
    }));
  });
});
