import { describe, expect, it } from 'vitest';
import type { Progress } from '../../lib/backup/index.ts';
import { createProgressReport, formatEta, formatProgressBar, formatProgressLine } from './progress-report.ts';
import { captureLogger } from './testing.test-helpers.ts';

const MiB = 1024 * 1024;
const p = (bytesDone: number, bytesTotal: number, bytesPerSecond: number, etaSeconds: number | undefined, partsDone = 1, partsTotal = 4): Progress =>
  ({ bytesDone, bytesTotal, bytesPerSecond, etaSeconds, partsDone, partsTotal });

describe('formatEta', () => {
  it('renders hours, minutes and seconds', () => {
    const f = (s: number | undefined, want: string) => expect(formatEta(s)).toBe(want);
    f(undefined, 'unknown');
    f(Number.POSITIVE_INFINITY, 'unknown');
    f(0, '0s');
    f(0.2, '1s'); // rounded up: never claims done early
    f(59, '59s');
    f(60, '1m0s');
    f(3723, '1h2m3s');
  });
});

describe('formatProgressLine', () => {
  it('shows bytes done of total, percent, parts, rate and ETA', () => {
    const f = (pr: Progress, want: string) => expect(formatProgressLine(pr)).toBe(want);
    f(p(MiB, 4 * MiB, MiB / 2, 6), '1.0 MiB of 4.0 MiB (25.0%), 1 of 4 parts, 512.0 KiB/s, ETA 6s');
    f(p(0, 0, 0, 0, 0, 0), '0 B of 0 B (100.0%), 0 of 0 parts, 0 B/s, ETA 0s');
    f(p(10, 1000, 0, undefined), '10 B of 1000 B (1.0%), 1 of 4 parts, 0 B/s, ETA unknown');
  });
});

describe('formatProgressBar', () => {
  it('draws a bar that fits the terminal', () => {
    const f = (pr: Progress, columns: number, want: string) => expect(formatProgressBar(pr, columns)).toBe(want);
    f(p(MiB, 4 * MiB, MiB, 3), 60, '[====>             ]  25.0% 1.0 MiB/4.0 MiB 1.0 MiB/s ETA 3s');
    f(p(4 * MiB, 4 * MiB, MiB, 0), 60, '[==================] 100.0% 4.0 MiB/4.0 MiB 1.0 MiB/s ETA 0s');
    // a narrow terminal: the line is cut, never wrapped
    expect(formatProgressBar(p(MiB, 4 * MiB, MiB, 3), 20)).toHaveLength(20);
  });
});

describe('createProgressReport', () => {
  it('logs at most once per interval while bytes remain, and redraws the bar on every report', () => {
    const log = captureLogger();
    let t = 0;
    const drawn: string[] = [];
    const r = createProgressReport({ logger: log.logger, what: 'upload of "latest"', now: () => t, logIntervalMs: 1000, terminal: { write: (s) => drawn.push(s), columns: 60 } });
    const f = (at: number, pr: Progress) => {
      t = at;
      r.onProgress(pr);
    };
    f(500, p(1, 10, 2, 4.5)); // too early for a log line
    f(1000, p(2, 10, 2, 4));
    f(1500, p(3, 10, 2, 3.5));
    f(2100, p(10, 10, 5, 0)); // finished: the summary is the caller's
    r.done();
    expect(log.messages()).toEqual(['upload of "latest": 2 B of 10 B (20.0%), 1 of 4 parts, 2 B/s, ETA 4s']);
    expect(drawn.filter((d) => d.startsWith('\r\x1b[K['))).toHaveLength(4);
    expect(drawn.at(-1)).toBe('\r\x1b[K');
    log.stop();
  });

  it('draws nothing without a terminal', () => {
    const log = captureLogger();
    const r = createProgressReport({ logger: log.logger, what: 'x', now: () => 0 });
    r.onProgress(p(1, 2, 1, 1));
    r.done();
    expect(log.lines).toEqual([]);
    log.stop();
  });
});
