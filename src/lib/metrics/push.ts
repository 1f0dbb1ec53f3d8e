import type { Logger } from '../logger/index.ts';
import { timerMs } from '../timer/index.ts';

/** PushOptions configure pushing the /metrics content to remote URLs (-pushmetrics.*). */
export interface PushOptions {
  readonly urls: readonly string[];
  readonly intervalMs: number;
  /** extraLabels are `name="value"` strings added to every sample. */
  readonly extraLabels: readonly string[];
  readonly render: () => Promise<string>;
  readonly logger: Logger;
}

const EXTRA_LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"$/;

/** checkExtraLabel throws unless label looks like name="value". */
export function checkExtraLabel(label: string): string {
  if (!EXTRA_LABEL.test(label)) throw new Error(`extra label ${JSON.stringify(label)} must look like name="value"`);
  return label;
}

/** addExtraLabels inserts labels (already `name="value"`) into every sample line of exposition text. */
export function addExtraLabels(text: string, labels: readonly string[]): string {
  if (labels.length === 0) return text;
  const extra = labels.join(',');
  return text.split('\n').map((line) => {
    if (line === '' || line.startsWith('#')) return line;
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    if (brace >= 0 && (space < 0 || brace < space)) {
      const rest = line.slice(brace + 1);
      return `${line.slice(0, brace)}{${extra}${rest.startsWith('}') ? '' : ','}${rest}`;
    }
    return space < 0 ? line : `${line.slice(0, space)}{${extra}}${line.slice(space)}`;
  }).join('\n');
}

/**
 * startPushMetrics POSTs the metrics text to every URL once per interval and returns a stop
 * function. A failing URL is logged and retried at the next interval; it never stops the others.
 */
export function startPushMetrics(o: PushOptions): () => void {
  if (o.urls.length === 0) return () => {};
  let running = false;
  const pushOnce = async () => {
    if (running) return;
    running = true;
    try {
      const body = addExtraLabels(await o.render(), o.extraLabels);
      await Promise.all(o.urls.map((url) => pushTo(url, body, o)));
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void pushOnce(), timerMs(o.intervalMs));
  timer.unref();
  return () => clearInterval(timer);
}

async function pushTo(url: string, body: string, o: PushOptions): Promise<void> {
  try {
    const res = await fetch(url, {
      method: 'POST', body, headers: { 'content-type': 'text/plain; version=0.0.4' },
      signal: AbortSignal.timeout(Math.max(o.intervalMs, 1000)),
    });
    await res.arrayBuffer();
    if (res.status >= 300) o.logger.warn(`cannot push metrics to ${JSON.stringify(url)}: unexpected status ${res.status}`);
  } catch (err) {
    o.logger.warn({ err }, `cannot push metrics to ${JSON.stringify(url)}`);
  }
}
