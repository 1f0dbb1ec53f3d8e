// Route-level options every Strata route may set in fastify's `config`.
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * authKey returns the key that protects this route through the `authKey` query arg (e.g.
     * -metricsAuthKey). When it returns a non-empty key, that key replaces -httpAuth.* for the route.
     */
    authKey?: () => string;
    /** authKeyFlag names the flag behind authKey, for the 401 message. */
    authKeyFlag?: string;
    /** public routes (/health) skip -httpAuth.*: probes and load balancers carry no credentials. */
    public?: boolean;
    /** rawCatchAll marks the fastify twins of HttpServer.registerRawCatchAll (not reserved paths). */
    rawCatchAll?: boolean;
    /**
     * prefixAliases: path prefixes under which the route is also served, inserted after its plugin's
     * prefix (['/prometheus']: `/api/v1/query` also at `/prometheus/api/v1/query`), by rewriting the
     * request URL before routing instead of registering the route again (prefix-aliases.ts).
     */
    prefixAliases?: readonly string[];
  }
}

export {};
