import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.ts';
import { parseAuthConfig } from './config-parse.ts';
import { type AuthConfig } from './config-types.ts';
import { basicKey, bearerKey } from './credentials.ts';

const parse = (yaml: string, env: Record<string, string> = {}, ipFiltersAllowed = true): AuthConfig =>
  parseAuthConfig(yaml, { env, ipFiltersAllowed });

describe('parseAuthConfig', () => {
  it('parses users with Basic and bearer credentials, names, prefixes with args, headers and limits', () => {
    const cfg = parse(`
users:
- username: alice
  password: "%{ALICE_PW}"
  url_prefix: "http://tsdb:8428/prefix/?extra_label=team%3Da"
  headers: ["X-Scope-OrgID: a", "X-Empty:"]
  max_concurrent_requests: 7
- bearer_token: tok
  name: robot
  url_prefix: ["http://s1:8481/select/0/prometheus", "https://s2:8481/select/0/prometheus"]
`, { ALICE_PW: 'p@ss:w' });
    const [alice, robot] = cfg.users;
    expect(alice!.label).toBe('alice');
    expect(alice!.authKeys).toEqual([basicKey('alice', 'p@ss:w')]);
    expect(alice!.urlPrefix).toHaveLength(1);
    const t = alice!.urlPrefix![0]!;
    expect([t.origin, t.basePath, t.forced.encoded, [...t.forced.names]]).toEqual(['http://tsdb:8428', '/prefix', 'extra_label=team%3Da', ['extra_label']]);
    expect(alice!.headers).toEqual([{ name: 'X-Scope-OrgID', value: 'a' }, { name: 'X-Empty', value: '' }]);
    expect(alice!.maxConcurrentRequests).toBe(7);
    expect(robot!.label).toBe('robot');
    expect(robot!.authKeys).toEqual([bearerKey('tok'), basicKey('tok', '')]);
    expect(robot!.urlPrefix!.map((u) => u.origin)).toEqual(['http://s1:8481', 'https://s2:8481']);
    expect(cfg.unauthorizedUser).toBeUndefined();
  });

  it('parses url_map, default_url, unauthorized_user and ip_filters', () => {
    const cfg = parse(`
users:
- username: bob
  url_map:
  - src_paths: ["/api/v1/query.*", "/api/v1/label/[^/]+/values"]
    url_prefix: http://select:8481/select/0/prometheus
    headers: ["X-Route: read"]
  - src_paths: ["/api/v1/write"]
    url_prefix: [http://insert:8480/insert/0/prometheus]
  default_url: [http://fallback/404]
  ip_filters: {allow_list: [10.0.0.0/8], deny_list: [10.0.0.1]}
unauthorized_user:
  url_prefix: http://public:8428
ip_filters:
  deny_list: ["192.168.0.0/16"]
`);
    const bob = cfg.users[0]!;
    expect(bob.label).toBe('bob');
    expect(bob.authKeys).toEqual([basicKey('bob', '')]);
    expect(bob.urlMap).toHaveLength(2);
    expect(bob.urlMap[0]!.srcPaths[1]!.test('/api/v1/label/job/values')).toBe(true);
    expect(bob.urlMap[0]!.srcPaths[1]!.test('/api/v1/label/a/b/values')).toBe(false);
    // src_paths are anchored: a prefix match is not a match
    expect(bob.urlMap[1]!.srcPaths[0]!.test('/api/v1/write/x')).toBe(false);
    expect(bob.urlMap[0]!.headers).toEqual([{ name: 'X-Route', value: 'read' }]);
    expect(bob.defaultUrl![0]!.basePath).toBe('/404');
    expect(bob.ipFilter!.allows('10.0.0.2')).toBe(true);
    expect(bob.ipFilter!.allows('10.0.0.1')).toBe(false);
    expect(cfg.unauthorizedUser!.urlPrefix![0]!.origin).toBe('http://public:8428');
    expect(cfg.ipFilter!.allows('192.168.1.1')).toBe(false);
  });

  it('allows one username with different passwords, told apart by name', () => {
    const cfg = parse(`
users:
- {username: ops, password: a, name: ops-a, url_prefix: "http://a"}
- {username: ops, password: b, name: ops-b, url_prefix: "http://b"}
`);
    expect(cfg.users.map((u) => u.label)).toEqual(['ops-a', 'ops-b']);
  });

  it('labels bearer-token users without a name by a hash, never the token', () => {
    const cfg = parse('users: [{bearer_token: s3cr3t, url_prefix: "http://a"}]');
    expect(cfg.users[0]!.label).toMatch(/^bearer_token:hash:[0-9A-F]{16}$/);
    expect(cfg.users[0]!.describe).not.toContain('s3cr3t');
  });

  it('rejects invalid configs with errors naming the key and the user', () => {
    const f = (yaml: string, want: RegExp, env: Record<string, string> = {}, eula = true) => {
      expect(() => parse(yaml, env, eula)).toThrow(ConfigError);
      expect(() => parse(yaml, env, eula)).toThrow(want);
    };
    f('', /no "users" and no "unauthorized_user"/);
    f('users: []', /no "users"/);
    f('user: []', /unknown key "user" at the top level/);
    f('users: [{username: a, url_prefix: "http://x", passwd: b}]', /unknown key "passwd" in user "a"/);
    f('users: [{name: n, bearer_token: t, url_prefix: "http://x", url_maps: []}]', /unknown key "url_maps" in user "n"/);
    f('users: [{bearer_token: t, url_prefix: "http://x", extra: 1}]', /unknown key "extra" in user "users\[0\]"/);
    f('unauthorized_user: {url_prefix: "http://x", username: a}', /unknown key "username" in "unauthorized_user"/);
    f('users: [{username: a, url_prefix: "http://x", url_map: [{src_paths: ["/a"], url_prefix: "http://y", src_hosts: []}]}]', /unknown key "src_hosts" in url_map\[0\] of user "a"/);
    f('users: [{username: a, url_prefix: "http://x", ip_filters: {allow: []}}]', /unknown key "allow" in "ip_filters" of user "a"/);
    f('users: [{username: a, url_prefix: "http://x"}, {username: a, url_prefix: "http://y"}]', /user "a" has the same credentials as user "a"/);
    f('users: [{bearer_token: t, name: x, url_prefix: "http://x"}, {username: t, name: y, url_prefix: "http://y"}]', /user "y" has the same credentials as user "x"/);
    f('users: [{url_prefix: "http://x"}]', /users\[0\]" needs "username" or "bearer_token"/);
    f('users: [{username: a, bearer_token: b, url_prefix: "http://x"}]', /sets both/);
    f('users: [{bearer_token: b, password: p, url_prefix: "http://x"}]', /"password" without "username"/);
    f('users: [{username: a}]', /user "a" needs "url_prefix" or "url_map"/);
    f('users: [{username: a, password: 123, url_prefix: "http://x"}]', /"password" of user "a" must be a string/);
    f('users: [{username: a, url_prefix: "ftp://x"}]', /must use http or https/);
    f('users: [{username: a, url_prefix: "not a url"}]', /is not a valid URL/);
    f('users: [{username: a, url_prefix: "http://u:p@x"}]', /must not carry credentials/);
    f('users: [{username: a, url_prefix: []}]', /"url_prefix" of user "a" must be a URL or a non-empty list/);
    f('users: [{username: a, url_prefix: "http://x", max_concurrent_requests: 0}]', /positive integer/);
    f('users: [{username: a, url_prefix: "http://x", headers: ["NoColon"]}]', /is not a "Name: value" header/);
    f('users: [{username: a, url_map: [{src_paths: ["(unclosed"], url_prefix: "http://x"}]}]', /cannot compile src_paths\[0\]/);
    f('users: [{username: a, url_map: [{src_paths: [], url_prefix: "http://x"}]}]', /non-empty list of regexps/);
    f('users: [{username: a, url_map: [{src_paths: ["/x"]}]}]', /url_map\[0\] of user "a" needs "url_prefix"/);
    f('users: [{username: a, url_prefix: "http://x", ip_filters: {allow_list: ["10.0.0.0/99"]}}]', /invalid prefix length/);
    f('users: [{username: a, url_prefix: "http://x", ip_filters: {allow_list: ["10.0.0.1"]}}]', /enterprise feature.*-eula/, {}, false);
    f('ip_filters: {deny_list: ["10.0.0.1"]}\nusers: [{username: a, url_prefix: "http://x"}]', /global "ip_filters".*-eula/, {}, false);
    f('users: [{username: a, password: "%{NOPE}", url_prefix: "http://x"}]', /undefined environment variable %\{NOPE\}/);
    f('users: [{username: a, url_prefix: "http://x"}\n', /cannot parse auth config YAML/);
    f('users: {username: a}', /"users" must be a list/);
    f('users: [a]', /users\[0\] must be a mapping/);
  });
});
