// Progress of long transfers (issue 6 item 4): bytes done/total, rate and ETA in the log every
// few seconds and, when stderr is a terminal, as a progress bar redrawn in place.

import { formatHumanSize, type OnProgress, type Progress } from '../../lib/backup/index.ts';
import type { Logger } from '../../lib/logger/index.ts';

/** formatEta renders seconds as `1h2m3s`, `4m0s`, `12s`; undefined (no rate yet) as `unknown`. */
export function formatEta(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return 'unknown';
  const s = Math.ceil(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h${m}m${rest}s`;
  if (m > 0) return `${m}m${rest}s`;
  return `${rest}s`;
}

/** percentDone is bytesDone/bytesTotal in percent with one decimal; a transfer of 0 bytes is 100%. */
export function percentDone(p: Progress): string {
  if (p.bytesTotal <= 0) return '100.0';
  return Math.min(100, (100 * p.bytesDone) / p.bytesTotal).toFixed(1);
}

/** formatProgressLine is the log form: `1.0 MiB of 4.0 MiB (25.0%), 3 of 12 parts, 512.0 KiB/s, ETA 6s`. */
export function formatProgressLine(p: Progress): string {
  return `${formatHumanSize(p.bytesDone)} of ${formatHumanSize(p.bytesTotal)} (${percentDone(p)}%), ` +
    `${p.partsDone} of ${p.partsTotal} parts, ${formatHumanSize(p.bytesPerSecond)}/s, ETA ${formatEta(p.etaSeconds)}`;
}

/**
 * formatProgressBar is the terminal form, at most `columns` characters wide:
 * `[=========>          ]  45.2% 1.0 MiB/2.2 MiB 512.0 KiB/s ETA 3s`.
 */
export function formatProgressBar(p: Progress, columns: number): string {
  const tail = ` ${percentDone(p).padStart(5)}% ${formatHumanSize(p.bytesDone)}/${formatHumanSize(p.bytesTotal)} ` +
    `${formatHumanSize(p.bytesPerSecond)}/s ETA ${formatEta(p.etaSeconds)}`;
  const width = Math.max(10, Math.min(50, columns - tail.length - 2));
  const fraction = p.bytesTotal <= 0 ? 1 : Math.min(1, p.bytesDone / p.bytesTotal);
  const filled = Math.floor(fraction * width);
  const bar = fraction >= 1 ? '='.repeat(width) : `${'='.repeat(filled)}>${' '.repeat(width - filled - 1)}`;
  return `[${bar}]${tail}`.slice(0, Math.max(1, columns));
}

/** Terminal is where the progress bar is drawn (process.stderr when it is a TTY). */
export interface Terminal {
  write(text: string): unknown;
  readonly columns?: number | undefined;
}

/** ProgressReportOptions configure createProgressReport. */
export interface ProgressReportOptions {
  readonly logger: Logger;
  /** what names the transfer in log lines, as `upload of "latest"`. */
  readonly what: string;
  readonly now: () => number;
  /** logIntervalMs is the least time between log lines; default 10 s. */
  readonly logIntervalMs?: number;
  /** terminal, when set, gets a progress bar redrawn on every report. */
  readonly terminal?: Terminal | undefined;
}

/** ProgressReport is an OnProgress plus `done`, which clears the bar. */
export interface ProgressReport {
  readonly onProgress: OnProgress;
  done(): void;
}

const CLEAR_LINE = '\r\x1b[K';

/**
 * createProgressReport logs progress at most every logIntervalMs (the first report after the
 * transfer started waits one interval, so short transfers log nothing but their summary) and
 * draws a bar on the terminal. Safe to call from every worker: reports are synchronous.
 */
export function createProgressReport(o: ProgressReportOptions): ProgressReport {
  const interval = o.logIntervalMs ?? 10_000;
  let lastLog = o.now();
  let drawn = false;
  return {
    onProgress(p) {
      const t = o.now();
      if (t - lastLog >= interval && p.bytesDone < p.bytesTotal) {
        lastLog = t;
        if (drawn) o.terminal?.write(CLEAR_LINE);
        o.logger.info(`${o.what}: ${formatProgressLine(p)}`);
      }
      if (o.terminal) {
        o.terminal.write(CLEAR_LINE + formatProgressBar(p, o.terminal.columns ?? 80));
        drawn = true;
      }
    },
    done() {
      if (drawn) o.terminal?.write(CLEAR_LINE);
      drawn = false;
    },
  };
}
