/**
 * RawCatchAllTable decides, without fastify's router, which requests a raw catch-all handler may
 * take directly (see HttpServer.registerRawCatchAll): those fastify itself would route to the
 * catch-all. It learns every other route from fastify's onRoute hook and claims a request only when
 * the answer is certain without fastify's URL decoding:
 *
 * - the path (up to "?") starts with "<prefix>/" and has no "%", ";" or "#" (fastify decodes or
 *   splits those, so it must see them);
 * - no other route has exactly this path (any method: a POST to a GET-only route then takes the
 *   slow path and still reaches the catch-all through fastify);
 * - no parametric or wildcard route of another component starts with the path's static part.
 *
 * Everything it does not claim goes through fastify, which routes it exactly as before, so a
 * request never gets a different answer from the fast path and the slow path. Event-loop only.
 */
export class RawCatchAllTable {
  readonly #prefix: string;
  readonly #staticPaths = new Set<string>();
  readonly #dynamicPrefixes: string[] = [];

  /** prefix is -http.pathPrefix ("" or "/x" without a trailing slash). */
  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** addRoute records a route registered outside the raw catch-all (url as fastify reports it, prefix included). */
  addRoute(url: string): void {
    const dynamic = url.search(/[:*(]/);
    if (dynamic < 0) this.#staticPaths.add(url);
    else this.#dynamicPrefixes.push(url.slice(0, dynamic));
  }

  /** claims reports whether the raw catch-all takes a request for url (a request-target, query included). */
  claims(url: string): boolean {
    const prefix = this.#prefix;
    if (url.charCodeAt(0) !== 47 || url.length <= prefix.length || url.charCodeAt(prefix.length) !== 47) return false;
    if (prefix !== '' && !url.startsWith(prefix)) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.includes('%') || path.includes(';') || path.includes('#')) return false;
    if (this.#staticPaths.has(path)) return false;
    for (const p of this.#dynamicPrefixes) if (path.startsWith(p)) return false;
    return true;
  }
}
