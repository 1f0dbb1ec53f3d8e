import { parseDuration } from '../../lib/flags/index.ts';

const DAY = 86_400_000;
/** MONTH_MS is the length of a retention month (31 days), so "1" keeps at least one calendar month. */
export const MONTH_MS = 31 * DAY;

/**
 * parseRetentionPeriod parses -retentionPeriod: a bare number is months ("1", "0.5"); otherwise a
 * duration with h, d, w or y suffixes ("90d", "2w", "1y"). It must be at least one day.
 */
export function parseRetentionPeriod(text: string): number {
  const s = text.trim();
  const ms = /^(\d+(\.\d*)?|\.\d+)$/.test(s) ? Number(s) * MONTH_MS : parseDuration(s);
  if (!Number.isFinite(ms) || ms < DAY) throw new Error(`retention period "${text}" is shorter than one day; use e.g. 1 (month), 90d, 2w or 1y`);
  return Math.round(ms);
}

/** formatRetentionPeriod prints a retention period the way it is most naturally written. */
export function formatRetentionPeriod(ms: number): string {
  if (ms % MONTH_MS === 0) return String(ms / MONTH_MS);
  if (ms % DAY === 0) return `${ms / DAY}d`;
  return `${ms / 3_600_000}h`;
}
