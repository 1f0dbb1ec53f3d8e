import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { LineSplitter, type SplitEvent } from './lines.ts';

// run feeds chunks and renders events as "T:<text>" or "L:<length>/<lines>"; blocks emitted as
// bytes (the `bytes` option) must render exactly as the decoded ones.
function run(chunks: string[], maxLineLength: number, quoteAware = false): string[] {
  const render = (bytes: boolean) => {
    const s = new LineSplitter({ maxLineLength, quoteAware, bytes });
    const out: string[] = [];
    const events: SplitEvent[] = [];
    const take = () => {
      // Bytes blocks may share the pushed chunk's memory: render them before the next push.
      for (const e of events.splice(0)) out.push(e.kind === 'text' ? `T:${e.text}` : e.kind === 'bytes' ? `T:${e.bytes.toString('utf8')}` : `L:${e.length}/${e.lines}`);
    };
    for (const c of chunks) {
      s.push(Buffer.from(c), events);
      take();
    }
    s.end(events);
    take();
    return out;
  };
  const text = render(false);
  expect(render(true)).toEqual(text);
  return text;
}

describe('LineSplitter', () => {
  it('joins lines split across chunks', () => {
    const f = (chunks: string[], want: string[]): void => {
      expect(run(chunks, 100)).toEqual(want);
    };
    f(['a 1\nb 2\n'], ['T:a 1\nb 2\n']);
    f(['a 1\nb', ' 2\n'], ['T:a 1\n', 'T:b 2\n']);
    f(['a', ' ', '1'], ['T:a 1']);
    f(['a 1\nb 2'], ['T:a 1\n', 'T:b 2']);
    f([], []);
    f(['', ''], []);
    // a multi-byte UTF-8 character cut between chunks survives
    f([Buffer.from('é\n').subarray(0, 1).toString('latin1')], ['T:\u00c3']);
  });
  it('keeps UTF-8 characters cut between chunks', () => {
    const bytes = Buffer.from('ü=1\nñ=2\n');
    const s = new LineSplitter({ maxLineLength: 100 });
    const out: SplitEvent[] = [];
    for (let i = 0; i < bytes.length; i++) s.push(bytes.subarray(i, i + 1), out);
    s.end(out);
    expect(out.map((e) => (e.kind === 'text' ? e.text : '?')).join('')).toBe('ü=1\nñ=2\n');
  });
  it('drops lines longer than the limit without buffering them', () => {
    const f = (chunks: string[], want: string[]): void => {
      expect(run(chunks, 5)).toEqual(want);
    };
    f(['abcdef\nok\n'], ['L:6/1', 'T:ok\n']);
    f(['ok\nabcdefgh\nok2\n'], ['T:ok\n', 'L:8/1', 'T:ok2\n']);
    f(['abc', 'def', 'ghi\nok\n'], ['L:9/1', 'T:ok\n']);
    f(['abc', 'defghijk', 'lmn', 'o\nok'], ['L:15/1', 'T:ok']);
    f(['abcdefghij'], ['L:10/1']);
    f(['12345\n'], ['T:12345\n']);
    f(['123', '45\n123456\n'], ['T:12345\n', 'L:6/1']);
  });
  it('keeps quoted newlines inside a record when quote-aware', () => {
    const f = (chunks: string[], max: number, want: string[]): void => {
      expect(run(chunks, max, true)).toEqual(want);
    };
    f(['a,"x\ny"\nb,c\n'], 100, ['T:a,"x\ny"\nb,c\n']);
    f(['a,"x', '\ny"\nb'], 100, ['T:a,"x\ny"\n', 'T:b']);
    f(['a,"x\ny"\nb,c\n'], 4, ['L:7/2', 'T:b,c\n']);
    f(['"""q"""\n'], 100, ['T:"""q"""\n']);
  });
  it('never loses or reorders bytes of accepted lines, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '\n', '"', 'é'), maxLength: 12 }), { maxLength: 8 }), fc.integer({ min: 1, max: 8 }), fc.boolean(), (parts, max, quoteAware) => {
        const text = parts.join('');
        const whole = run([text], max, quoteAware);
        expect(run(parts, max, quoteAware).join('|').replace(/\|T:/g, '')).toBe(whole.join('|').replace(/\|T:/g, ''));
      }),
      { numRuns: 2000 },
    );
  });
});
