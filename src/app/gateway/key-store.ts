// All verification keys of the gateway: PEM keys from flags (fixed for the life of the process)
// and the keys of every remote key set.
import { type Algorithm, fits, type VerificationKey } from './keys.ts';
import type { RemoteKeySet } from './remote-keys.ts';

/** Candidates are the keys to try for one token, those whose kid matches first. */
export interface Candidates {
  /** byKid: keys whose kid equals the token's. */
  readonly byKid: readonly VerificationKey[];
  /** others: keys without a kid (PEM keys, key-set entries without one). */
  readonly others: readonly VerificationKey[];
}

/** KeyStore answers which keys may have signed a token. */
export class KeyStore {
  readonly #static: readonly VerificationKey[];
  readonly #remotes: readonly RemoteKeySet[];

  constructor(staticKeys: readonly VerificationKey[], remotes: readonly RemoteKeySet[]) {
    this.#static = staticKeys;
    this.#remotes = remotes;
  }

  /** configured: some key source was given; without one, signatures are not checked. */
  get configured(): boolean {
    return this.#static.length > 0 || this.#remotes.length > 0;
  }

  /** hasRemotes: an unknown kid may be fixed by refreshing. */
  get hasRemotes(): boolean {
    return this.#remotes.length > 0;
  }

  /** size is the number of keys in use now. */
  get size(): number {
    return this.#static.length + this.#remotes.reduce((n, r) => n + r.keys.length, 0);
  }

  /** candidates lists the keys fitting alg; with a kid, keys of another kid are left out. */
  candidates(alg: Algorithm, kid: string | undefined): Candidates {
    const byKid: VerificationKey[] = [];
    const others: VerificationKey[] = [];
    const consider = (k: VerificationKey) => {
      if (!fits(k, alg)) return;
      if (k.kid === undefined) others.push(k);
      else if (kid === undefined || k.kid === kid) byKid.push(k);
    };
    for (const k of this.#static) consider(k);
    for (const r of this.#remotes) for (const k of r.keys) consider(k);
    return { byKid, others };
  }

  /** refreshForUnknownKid refreshes the remote sets that may (rate-limited) and resolves when done. */
  async refreshForUnknownKid(): Promise<void> {
    await Promise.all(this.#remotes.map((r) => r.refreshIfAllowed()));
  }

  /** start fetches every remote set once and schedules their refreshes. */
  async start(): Promise<void> {
    await Promise.all(this.#remotes.map((r) => r.start()));
  }

  stop(): void {
    for (const r of this.#remotes) r.stop();
  }
}
