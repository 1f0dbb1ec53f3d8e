import type { ForcedArgs, HeaderPair, IpFilter } from '../../lib/httpproxy/index.ts';

/** TargetUrl is one entry of a url_prefix or default_url list. */
export interface TargetUrl {
  /** origin is "scheme://host:port": the connection pool key. */
  readonly origin: string;
  /** basePath is the prefix's path without a trailing slash ("" for none). */
  readonly basePath: string;
  /** forced are the prefix's query args, sent with every request and never overridden. */
  readonly forced: ForcedArgs;
  /** text is the URL as configured, for logs and metric labels (config URLs carry no userinfo). */
  readonly text: string;
}

/** UrlMapEntry routes requests whose path fully matches one of srcPaths. */
export interface UrlMapEntry {
  readonly srcPaths: readonly RegExp[];
  readonly urlPrefix: readonly TargetUrl[];
  readonly headers: readonly HeaderPair[];
}

/** UserConfig is one entry of `users` (or the `unauthorized_user` section). */
export interface UserConfig {
  /** label is the `username` metric label: name, else username, else a hash of the bearer token. */
  readonly label: string;
  /** describe names the user in errors and logs without revealing secrets. */
  readonly describe: string;
  /** authKeys are canonical Authorization header values this user is matched by. */
  readonly authKeys: readonly string[];
  readonly urlPrefix: readonly TargetUrl[] | undefined;
  readonly urlMap: readonly UrlMapEntry[];
  readonly defaultUrl: readonly TargetUrl[] | undefined;
  readonly headers: readonly HeaderPair[];
  /** maxConcurrentRequests overrides -maxConcurrentPerUserRequests when set. */
  readonly maxConcurrentRequests: number | undefined;
  readonly ipFilter: IpFilter | undefined;
}

/** AuthConfig is a parsed, validated -auth.config. */
export interface AuthConfig {
  readonly users: readonly UserConfig[];
  readonly unauthorizedUser: UserConfig | undefined;
  readonly ipFilter: IpFilter | undefined;
}
