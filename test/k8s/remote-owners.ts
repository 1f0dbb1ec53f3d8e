// RemoteOwners: what the fake's garbage collector knows about owners that live on the real API
// server (custom resources, when the fake forwards strata.dev). It watches every strata.dev kind
// there (informers) and, like the real collector, never collects a dependent on a guess: an owner
// it has not seen is looked up by name and uid first. Deleting a custom resource on the real
// server thus deletes its children in the fake.
import type { KubeConfig } from '@kubernetes/client-node';
import { realClock } from '../../operator/runtime/clock.ts';
import { Informer } from '../../operator/controller/informer.ts';
import { MemoryLogger } from '../../operator/runtime/logger.ts';
import { RestKubeClient } from '../../operator/k8s/rest-client.ts';
import { CUSTOM } from '../../operator/k8s/resources.ts';
import type { OwnerReference } from '../../operator/k8s/types.ts';

const GROUP_PREFIX = 'strata.dev/';

/** RemoteOwners answers ObjectStore's foreignOwner question for strata.dev owners. */
export class RemoteOwners {
  /** log holds the informers' messages (list or watch failures), for debugging a test. */
  readonly log = new MemoryLogger();
  readonly #client: RestKubeClient;
  readonly #informers = new Map<string, Informer>();
  readonly #gone = new Set<string>();
  readonly #checking = new Set<string>();
  readonly #collect: () => void;
  readonly #stop = new AbortController();
  #running: Promise<unknown> = Promise.resolve();

  /**
   * collect runs the store's garbage collection: when an owner is known gone, and once each watch
   * has listed (an owner deleted before that is never reported deleted; the collection then looks
   * up the owners it has not seen).
   */
  constructor(kc: KubeConfig, collect: () => void) {
    this.#client = new RestKubeClient(kc);
    this.#collect = collect;
    for (const type of Object.values(CUSTOM)) {
      const informer = new Informer({
        client: this.#client, type, namespaces: undefined, log: this.log, clock: realClock, resyncMs: 0,
        backoff: { baseMs: 50, maxMs: 2000 }, watchTimeoutSeconds: 60,
      });
      informer.on((e) => {
        if (e.type === 'DELETED') this.#markGone(e.object.metadata.uid!);
      });
      this.#informers.set(type.kind, informer);
    }
  }

  start(): void {
    const signal = this.#stop.signal;
    this.#running = Promise.all([...this.#informers.values()].map(async (i) => {
      void i.waitForSync(signal).then(() => signal.aborted || this.#collect());
      await i.run(signal);
    }));
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
    await this.#client.close();
  }

  #markGone(uid: string): void {
    if (this.#gone.has(uid)) return;
    this.#gone.add(uid);
    this.#collect();
  }

  /**
   * exists: undefined for references that are not to strata.dev; false once the owner is known
   * gone; true when it is seen or not yet verified (verification runs in the background).
   */
  exists(ref: OwnerReference, namespace: string): boolean | undefined {
    if (!ref.apiVersion.startsWith(GROUP_PREFIX)) return undefined;
    if (this.#gone.has(ref.uid)) return false;
    const seen = this.#informers.get(ref.kind)?.get({ namespace, name: ref.name });
    // An owner being deleted (finalizers pending) still exists: background deletion waits for it.
    if (seen?.metadata.uid === ref.uid) return true;
    void this.#verify(ref, namespace);
    return true;
  }

  // verify looks the owner up on the real server; absent, or present under another uid, means gone.
  async #verify(ref: OwnerReference, namespace: string): Promise<void> {
    const type = CUSTOM[ref.kind];
    if (type === undefined || this.#checking.has(ref.uid)) return;
    this.#checking.add(ref.uid);
    try {
      const live = await this.#client.get(type, { namespace, name: ref.name });
      if (live === undefined || live.metadata.uid !== ref.uid) this.#markGone(ref.uid);
    } catch (err) {
      this.log.warn({ err, owner: `${ref.kind}/${namespace}/${ref.name}` }, 'cannot verify an owner on the real API server');
    } finally {
      this.#checking.delete(ref.uid);
    }
  }
}
