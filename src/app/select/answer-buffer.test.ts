import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerSent, IDLE_MS, SPARE_MAX_BYTES, takeAnswerBuffer } from './answer-buffer.ts';

const detached = (b: Buffer): boolean => (b.buffer as ArrayBuffer).detached;

// Every test leaves the spare free (or dropped), as the server does between answers.
describe('takeAnswerBuffer / answerSent', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reuses the memory of a written answer for the next one that fits', () => {
    const a = takeAnswerBuffer(1 << 16);
    answerSent(a.subarray(0, 100), true);
    expect(detached(a)).toBe(false);
    const b = takeAnswerBuffer(1 << 15);
    expect(b.buffer).toBe(a.buffer);
    answerSent(b.subarray(0, 10), true);
  });

  it('gives memory of its own to an answer while the spare is being written, and frees it once written', () => {
    const a = takeAnswerBuffer(1 << 16);
    const b = takeAnswerBuffer(1 << 10);
    expect(b.buffer).not.toBe(a.buffer);
    answerSent(b, true);
    expect(detached(b)).toBe(true);
    expect(detached(a)).toBe(false);
    answerSent(a, true);
    expect(takeAnswerBuffer(1 << 10).buffer).toBe(a.buffer);
    answerSent(a, true);
  });

  it('keeps the larger memory when an answer outgrows the spare, freeing the old spare', () => {
    const a = takeAnswerBuffer(1 << 16);
    answerSent(a, true);
    const b = takeAnswerBuffer(1 << 18);
    expect(b.buffer).not.toBe(a.buffer);
    expect(detached(a)).toBe(true);
    answerSent(b, true);
    expect(takeAnswerBuffer(1 << 17).buffer).toBe(b.buffer);
    answerSent(b, true);
  });

  it('neither reuses nor frees the memory of an abandoned answer (the socket may still hold it)', () => {
    const a = takeAnswerBuffer(1 << 16);
    answerSent(a, false);
    expect(detached(a)).toBe(false);
    const b = takeAnswerBuffer(1 << 10);
    expect(b.buffer).not.toBe(a.buffer);
    answerSent(b, true);
  });

  it('does not keep memory for answers above SPARE_MAX_BYTES', () => {
    const small = takeAnswerBuffer(1 << 10);
    answerSent(small, true);
    const big = takeAnswerBuffer(SPARE_MAX_BYTES + 1);
    expect(detached(small)).toBe(false);
    answerSent(big, true);
    expect(detached(big)).toBe(true);
    expect(takeAnswerBuffer(1 << 10).buffer).toBe(small.buffer);
    answerSent(small, true);
  });

  it('frees the spare after IDLE_MS without an answer', () => {
    vi.useFakeTimers();
    const a = takeAnswerBuffer(1 << 16);
    answerSent(a, true);
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(detached(a)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(detached(a)).toBe(true);
    const b = takeAnswerBuffer(1 << 10);
    expect(b.buffer).not.toBe(a.buffer);
    answerSent(b, true);
  });
});
