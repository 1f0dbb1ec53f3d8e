import type { IncomingMessage } from 'node:http';
import type { RouteOptions } from 'fastify';
import { quoteMeta } from '../regexp/index.ts';

/**
 * PrefixAliases serves a route under further path prefixes without registering it again: a route
 * whose config has `prefixAliases: ['/prometheus']` and url `<p>/api/v1/query` (p: its plugin's
 * prefix, -http.pathPrefix) is also reached at `<p>/prometheus/api/v1/query`, by rewriting the
 * request's URL before fastify routes it (fastify's rewriteUrl; request.originalUrl keeps the URL
 * as sent). The single node's read API is served at its paths and under /prometheus this way,
 * which halves its routes (each one costs route building on every start: issue 18 item 4).
 *
 * Only the alias of a registered route is rewritten, so every other URL is routed exactly as
 * before: a path under an alias that no route declares (or one an explicit route of its own
 * serves, such as the insert routes' /prometheus/api/v1/write) is left as sent. A rewritten request
 * counts under its route's url in <prefix>_http_requests_total, as VictoriaMetrics counts a
 * /prometheus/… request under its path without the prefix. Event-loop only.
 */
export class PrefixAliases {
  /** Alias paths of static routes → the route's path. */
  readonly #static = new Map<string, string>();
  /** Parametric routes' aliases: the alias path's static head, and a matcher capturing the path around the alias. */
  readonly #dynamic: Array<{ readonly head: string; readonly re: RegExp }> = [];

  /**
   * onRoute learns the aliases of a route (fastify's onRoute hook). A route may only be parametric
   * in whole `:name` segments: wildcards and regular-expression parameters cannot be matched
   * without fastify's router and are refused.
   */
  readonly onRoute = (route: RouteOptions & { prefix?: string }): void => {
    for (const { aliased, prefix, alias, rest } of aliasesOf(route)) {
      if (!/^\/[^/:*?#%;()]+$/.test(alias)) throw new Error(`cannot alias route "${route.url}" under "${alias}": an alias is one static path segment such as /prometheus`);
      if (!/[:*(]/.test(aliased)) {
        this.#static.set(aliased, route.url);
        continue;
      }
      if (/[*(]/.test(aliased) || !aliased.split('/').every((s) => !s.includes(':') || /^:[A-Za-z_][A-Za-z0-9_]*$/.test(s))) {
        throw new Error(`cannot alias route "${route.url}": only whole ":name" segments can be parametric in an aliased route`);
      }
      this.#dynamic.push({ head: aliased.slice(0, aliased.indexOf(':')), re: new RegExp(`^(${pathPattern(prefix)})${quoteMeta(alias)}(${pathPattern(rest)})$`) });
    }
  };

  /** rewrite returns a request's URL with a route alias removed, or the URL as sent (fastify's rewriteUrl). */
  readonly rewrite = (req: IncomingMessage): string => {
    const url = req.url ?? '/';
    if (this.#static.size === 0 && this.#dynamic.length === 0) return url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q);
    const target = this.#static.get(path);
    if (target !== undefined) return target + query;
    for (const d of this.#dynamic) {
      if (!path.startsWith(d.head)) continue;
      const m = d.re.exec(path);
      if (m !== null) return m[1]! + m[2]! + query;
    }
    return url;
  };
}

/**
 * aliasesOf returns the paths under which a route (as fastify's onRoute hook gives it: url with its
 * plugin's prefix) is also served, each with its parts; tables that must know every path fastify
 * answers (RawCatchAllTable) learn them too.
 */
export function aliasesOf(route: RouteOptions & { prefix?: string }): Array<{ aliased: string; prefix: string; alias: string; rest: string }> {
  const aliases = route.config?.prefixAliases;
  if (aliases === undefined || aliases.length === 0) return [];
  const prefix = route.prefix ?? '';
  if (!route.url.startsWith(prefix)) throw new Error(`cannot alias route "${route.url}": it does not start with its prefix "${prefix}"`);
  const rest = route.url.slice(prefix.length);
  return aliases.map((alias) => ({ aliased: `${prefix}${alias}${rest}`, prefix, alias, rest }));
}

/** pathPattern matches a route path with whole-segment ":name" parameters. */
function pathPattern(path: string): string {
  return path.split('/').map((s) => (s.startsWith(':') ? '[^/]*' : quoteMeta(s))).join('/');
}
