import { DEFAULT_WINDOW_BYTES } from '../../lib/httpproxy/index.ts';

const MIN_WINDOW_BYTES = 64 * 1024;

/**
 * responseWindow is how many response bytes one request may buffer for a slow client when all
 * -maxConcurrentRequests requests together may use budgetBytes: between 64 KiB and 256 KiB;
 * 256 KiB without a budget.
 */
export function responseWindow(budgetBytes: number | undefined, maxConcurrentRequests: number): number {
  if (budgetBytes === undefined) return DEFAULT_WINDOW_BYTES;
  return Math.max(MIN_WINDOW_BYTES, Math.min(DEFAULT_WINDOW_BYTES, Math.floor(budgetBytes / maxConcurrentRequests)));
}
