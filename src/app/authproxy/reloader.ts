import { type Logger } from '../../lib/logger/index.ts';
import { ConfigError } from './config-error.ts';
import { parseAuthConfig, type ParseOptions } from './config-parse.ts';
import { type AuthConfig } from './config-types.ts';
import * as m from './metrics.ts';

/** ReloadOutcome says whether a reload left the proxy serving the config as it is now; reason says why not. */
export type ReloadOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** ReloaderOptions: where the config comes from and what to do with a good one. */
export interface ReloaderOptions {
  /** read returns the current config text (file or URL). */
  readonly read: () => Promise<string>;
  readonly parse: ParseOptions;
  /**
   * apply starts serving a successfully parsed config (text is what it was parsed from); a reload
   * counts as done when the promise it returns settles.
   */
  readonly apply: (cfg: AuthConfig, text: string) => void | Promise<void>;
  readonly logger: Logger;
  /** location names the config in logs. */
  readonly location: string;
  /** now returns ms since the epoch. */
  readonly now: () => number;
}

const OK: ReloadOutcome = { ok: true };

/**
 * ConfigReloader loads -auth.config and reloads it on demand (SIGHUP, /-/reload, the
 * -configCheckInterval timer). A config that cannot be read or parsed is logged and counted; the
 * previous one stays in use. Reloads never overlap: a request during a reload runs one more after it.
 */
export class ConfigReloader {
  readonly #o: ReloaderOptions;
  #lastText: string | undefined;
  #running: Promise<ReloadOutcome> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: ReloaderOptions) {
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
    try {
      const text = await this.#o.read();
      if (text === this.#lastText) {
        m.reloadSuccessful.set(1);
        return OK;
      }
      await this.#applyText(text);
      this.#o.logger.info(`reloaded auth config "${this.#o.location}"`);
      return OK;
    } catch (err) {
      m.reloadSuccessful.set(0);
      m.reloadErrors.inc();
      const what = `${err instanceof ConfigError ? 'invalid auth config' : 'cannot load auth config'} "${this.#o.location}"`;
      this.#o.logger.error({ err }, `${what}; keeping the previous config`);
      return { ok: false, reason: `${what}: ${(err as Error).message}; the previous config is still in use` };
    }
  }

  async #applyText(text: string): Promise<void> {
    const cfg = parseAuthConfig(text, this.#o.parse);
    await this.#o.apply(cfg, text);
    this.#lastText = text;
    m.reloadSuccessful.set(1);
    m.reloadSuccessTimestamp.set(this.#o.now() / 1000);
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
