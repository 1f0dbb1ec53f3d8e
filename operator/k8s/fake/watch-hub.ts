// WatchHub: the event history and open watches of an ObjectStore. Watches replay from a
// resourceVersion within the history window; older versions get 410 Gone.
import { KubeApiError } from '../errors.ts';
import { matches } from '../selector.ts';
import type { Selector } from '../selector.ts';
import type { KubeObject } from '../types.ts';
import type { WatchEvent } from '../client.ts';

interface HistoryEntry {
  readonly rv: number;
  readonly typeId: string;
  readonly event: WatchEvent;
  readonly previous: KubeObject | undefined;
}

/** WatchSpec says what a watcher wants to see. */
export interface WatchSpec {
  readonly typeId: string;
  readonly namespace: string | undefined;
  readonly selector: Selector;
}

interface Watcher extends WatchSpec {
  readonly send: (event: WatchEvent) => void;
  readonly close: () => void;
}

/** WatchHub is single-threaded like the store that owns it. */
export class WatchHub {
  readonly #history: HistoryEntry[] = [];
  readonly #watchers = new Set<Watcher>();
  readonly #limit: number;
  #compactedRv = 0;

  constructor(historyLimit: number) {
    this.#limit = historyLimit;
  }

  /** record remembers an event (at resourceVersion rv) and delivers it to open watches. */
  record(rv: number, typeId: string, event: WatchEvent, previous: KubeObject | undefined): void {
    this.#history.push({ rv, typeId, event, previous });
    if (this.#history.length > this.#limit) this.#compactedRv = this.#history.shift()!.rv;
    for (const w of [...this.#watchers]) if (w.typeId === typeId) deliver(w, event, previous);
  }

  /**
   * watch opens a watch. `initial` lists current objects for resourceVersion "" or "0" (sent as
   * ADDED); otherwise history after the version is replayed. Returns a stop function.
   */
  watch(spec: WatchSpec, resourceVersion: string, initial: () => KubeObject[], send: (e: WatchEvent) => void, close: () => void): () => void {
    const watcher: Watcher = { ...spec, send, close };
    if (resourceVersion === '' || resourceVersion === '0') {
      for (const obj of initial()) send({ type: 'ADDED', object: obj });
    } else {
      const from = Number(resourceVersion);
      if (!Number.isInteger(from)) throw new KubeApiError(400, 'BadRequest', `invalid resourceVersion "${resourceVersion}"`);
      if (from < this.#compactedRv) throw new KubeApiError(410, 'Expired', `too old resource version: ${from} (${this.#compactedRv})`);
      for (const h of this.#history) if (h.rv > from && h.typeId === spec.typeId) deliver(watcher, h.event, h.previous);
    }
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** compact forgets history up to rv: watches from older versions fail with 410. */
  compact(rv: number): void {
    this.#history.length = 0;
    this.#compactedRv = rv;
  }

  /** closeAll ends every open watch. */
  closeAll(): void {
    const all = [...this.#watchers];
    this.#watchers.clear();
    for (const w of all) w.close();
  }
}

// A watch with a label selector sees an object enter (ADDED) or leave (DELETED) the selection.
function deliver(w: Watcher, event: WatchEvent, previous: KubeObject | undefined): void {
  const obj = event.object;
  if (w.namespace !== undefined && obj.metadata.namespace !== w.namespace) return;
  const now = matches(w.selector, obj.metadata.labels);
  const before = previous !== undefined && matches(w.selector, previous.metadata.labels);
  if (event.type === 'MODIFIED' && now !== before) w.send({ type: now ? 'ADDED' : 'DELETED', object: structuredClone(obj) });
  else if (now || (event.type === 'DELETED' && before)) w.send({ type: event.type, object: structuredClone(obj) });
}
