// EventRecorder writes core/v1 Events about resources. Events are best effort: failures are
// logged, never thrown, and a repeated event (same object, reason, message) is written at most
// once per dedupMs so a rollout loop cannot flood the API server.
import type { KubeClient } from '../k8s/client.ts';
import type { KubeObject } from '../k8s/types.ts';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';

/** EventType is Normal or Warning, as in Kubernetes. */
export type EventType = 'Normal' | 'Warning';

/** EventRecorder records events; safe for concurrent use. */
export class EventRecorder {
  readonly #client: KubeClient;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #component: string;
  readonly #instance: string;
  readonly #dedupMs: number;
  readonly #recent = new Map<string, number>();
  #seq = 0;

  constructor(opts: { client: KubeClient; clock: Clock; log: Logger; component: string; instance: string; dedupMs?: number }) {
    this.#client = opts.client;
    this.#clock = opts.clock;
    this.#log = opts.log;
    this.#component = opts.component;
    this.#instance = opts.instance;
    this.#dedupMs = opts.dedupMs ?? 10 * 60_000;
  }

  /** record writes an event about obj (in obj's namespace). */
  async record(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const now = this.#clock.now();
    const dedupKey = `${obj.metadata.uid}|${reason}|${message}`;
    const last = this.#recent.get(dedupKey);
    if (last !== undefined && now - last < this.#dedupMs) return;
    this.#recent.set(dedupKey, now);
    if (this.#recent.size > 10_000) for (const [k, t] of this.#recent) if (now - t >= this.#dedupMs) this.#recent.delete(k);
    const ts = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${obj.metadata.name}.${now.toString(16)}${(this.#seq++ % 4096).toString(16).padStart(3, '0')}`, namespace: obj.metadata.namespace! },
      involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid },
      reason,
      message: message.slice(0, 1024),
      type,
      source: { component: this.#component },
      reportingComponent: this.#component,
      reportingInstance: this.#instance,
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
    };
    try {
      await this.#client.create(event);
    } catch (err) {
      this.#log.warn({ kind: obj.kind, name: obj.metadata.name, reason, err }, 'cannot record event');
    }
  }
}
