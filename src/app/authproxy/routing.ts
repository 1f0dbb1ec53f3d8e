import { mergeQueryArgs, type NormalizedPath } from '../../lib/httpproxy/index.ts';
import type { Route, Target, UserState } from './state.ts';

/**
 * selectRoute picks a user's route for a cleaned, decoded path: the first url_map entry with a
 * fully matching src_paths regexp, else url_prefix, else default_url; undefined when none applies.
 */
export function selectRoute(user: UserState, path: string): Route | undefined {
  for (const e of user.mapRoutes) {
    for (const re of e.srcPaths) if (re.test(path)) return e.route;
  }
  return user.prefixRoute ?? user.defaultRoute;
}

/**
 * upstreamPath is the path and query sent to target: the prefix path plus the request path with the
 * client's query merged under the prefix's forced args; for default_url, the prefix path with the
 * original path and query in the `request_path` arg. Throws QueryError on an undecodable arg name.
 */
export function upstreamPath(route: Route, t: Target, path: NormalizedPath, query: string): string {
  const url = t.url;
  if (route.isDefaultUrl) {
    const requestPath = `request_path=${encodeURIComponent(query === '' ? path.path : `${path.path}?${query}`)}`;
    return `${url.basePath === '' ? '/' : url.basePath}?${url.forced.encoded === '' ? requestPath : `${url.forced.encoded}&${requestPath}`}`;
  }
  const q = mergeQueryArgs(query, url.forced);
  const p = url.basePath + path.encoded;
  return q === '' ? p : `${p}?${q}`;
}
