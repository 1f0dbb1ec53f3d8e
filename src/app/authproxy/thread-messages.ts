import type { MetricsDelta } from '../../lib/metrics/index.ts';
import type { ThreadConfig } from './component.ts';
import type { ReloadOutcome } from '../../lib/config/index.ts';

/** ThreadData is what a further thread of the auth proxy starts with (its workerData). */
export interface ThreadData {
  readonly index: number;
  /** port is the port the first thread bound, joined with SO_REUSEPORT. */
  readonly port: number;
  readonly globalLimiter: SharedArrayBuffer;
  readonly config: ThreadConfig;
  readonly bufferBudgetBytes: number;
}

/** ToThread are the first thread's messages to a further thread. */
export type ToThread =
  | { readonly type: 'config'; readonly id: number; readonly config: ThreadConfig }
  | { readonly type: 'collect'; readonly id: number }
  | { readonly type: 'scraped'; readonly id: number; readonly text?: string; readonly error?: string }
  | { readonly type: 'reloaded'; readonly id: number; readonly outcome: ReloadOutcome }
  | { readonly type: 'shutdown-delay' }
  | { readonly type: 'close' };

/** FromThread are a further thread's messages to the first thread. */
export type FromThread =
  | { readonly type: 'ready' }
  | { readonly type: 'applied'; readonly id: number }
  | { readonly type: 'delta'; readonly id: number | undefined; readonly delta: MetricsDelta }
  | { readonly type: 'scrape'; readonly id: number }
  | { readonly type: 'reload'; readonly id: number };
