import type { Logger } from '../logger/index.ts';
import type { Counter, Gauge } from '../metrics/index.ts';

/** ReloadMetrics are the three series every reloadable config exports (<prefix>_config_last_reload_*). */
export interface ReloadMetrics {
  /** successful is 1 while the last attempt succeeded, 0 after a failure. */
  readonly successful: Gauge;
  readonly errors: Counter;
  /** successTimestamp is the Unix time (seconds) of the last successful load. */
  readonly successTimestamp: Gauge;
}

/** ReloadOutcome says whether a reload left the config in use as it is now; reason says why not. */
export type ReloadOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: ReloadOutcome = { ok: true };

/** ReloaderOptions: where a config comes from, how it is parsed and what to do with a good one. */
export interface ReloaderOptions<T> {
  /** read returns the current config text (file or URL). */
  readonly read: () => Promise<string>;
  /** parse turns text into a config; it throws on an invalid one. Pure. */
  readonly parse: (text: string) => T;
  /**
   * apply starts serving a successfully parsed config (text is what it was parsed from); a reload
   * counts as done when the promise it returns settles.
   */
  readonly apply: (cfg: T, text: string) => void | Promise<void>;
  /** isInvalid tells a config error (the text is wrong) from a read error, for the log line. */
  readonly isInvalid: (err: unknown) => boolean;
  readonly metrics: ReloadMetrics;
  readonly logger: Logger;
  /** what names the config in logs ("auth config"). */
  readonly what: string;
  /** location names where it is read from in logs. */
  readonly location: string;
  /** now returns ms since the epoch. */
  readonly now: () => number;
}

/**
 * ConfigReloader loads a config and reloads it on demand (SIGHUP, an HTTP reload endpoint, an
 * interval timer). A config that cannot be read or parsed is logged and counted; the previous one
 * stays in use. Reloads never overlap: a request during a reload runs one more after it.
 */
export class ConfigReloader<T> {
  readonly #o: ReloaderOptions<T>;
  #lastText: string | undefined;
  #running: Promise<ReloadOutcome> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: ReloaderOptions<T>) {
    this.#o = o;
  }

  /** loadInitial loads the config once; it throws (naming the problem) so the binary can exit. */
  async loadInitial(): Promise<void> {
    const text = await this.#o.read();
    await this.#applyText(text);
  }

  /** reload re-reads the config; resolves ok when it is now in use (or unchanged), else with why it was rejected. */
  reload(): Promise<ReloadOutcome> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#reloadLoop().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #reloadLoop(): Promise<ReloadOutcome> {
    let outcome: ReloadOutcome;
    do {
      this.#again = false;
      outcome = await this.#reloadOnce();
    } while (this.#again);
    return outcome;
  }

  async #reloadOnce(): Promise<ReloadOutcome> {
    const o = this.#o;
    try {
      const text = await o.read();
      if (text === this.#lastText) {
        o.metrics.successful.set(1);
        return OK;
      }
      await this.#applyText(text);
      o.logger.info(`reloaded ${o.what} "${o.location}"`);
      return OK;
    } catch (err) {
      o.metrics.successful.set(0);
      o.metrics.errors.inc();
      const what = `${o.isInvalid(err) ? `invalid ${o.what}` : `cannot load ${o.what}`} "${o.location}"`;
      o.logger.error({ err }, `${what}; keeping the previous config`);
      return { ok: false, reason: `${what}: ${(err as Error).message}; the previous config is still in use` };
    }
  }

  async #applyText(text: string): Promise<void> {
    const o = this.#o;
    const cfg = o.parse(text);
    await o.apply(cfg, text);
    this.#lastText = text;
    o.metrics.successful.set(1);
    o.metrics.successTimestamp.set(o.now() / 1000);
  }

  /** startInterval re-reads the config every intervalMs (0 disables). */
  startInterval(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => void this.reload(), intervalMs);
    this.#timer.unref();
  }

  /** stop ends the interval timer. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
