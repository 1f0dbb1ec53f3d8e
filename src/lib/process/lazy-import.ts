/**
 * lazyImport returns a loader that imports a module on its first call and gives every later call the same
 * promise. Modules a server needs only for some requests (one wire format's parser, an export writer, the
 * vmalert proxy) load on first use instead of on the start path (issue 18 item 4). A failed import stays
 * failed, as ESM caches it anyway.
 */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
