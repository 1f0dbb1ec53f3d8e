import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.ts';
import { parseAuthConfig } from './config-parse.ts';

const fragments = fc.constantFrom(
  'users:', '\n- ', 'username: a', '\n  ', 'password: p', 'bearer_token: t', 'url_prefix: http://x', 'url_prefix: [http://x, "http://y?a=b"]',
  'url_map:', 'src_paths: ["/a.*"]', 'src_paths: ["(["]', 'default_url: [http://d]', 'headers: ["A: b"]', 'max_concurrent_requests: 3',
  'ip_filters: {allow_list: [10.0.0.0/8]}', 'unauthorized_user:', '%{X}', '%{NOPE}', '{', '}', '[', ']', ':', '"', "'", '&a', '*a', '!!binary', '0x1', ' ',
);

describe('parseAuthConfig (fuzz)', () => {
  it('returns a config or throws ConfigError, never anything else', () => {
    fc.assert(fc.property(fc.array(fragments, { maxLength: 25 }).map((a) => a.join('')), fc.boolean(), (text, eula) => {
      try {
        const cfg = parseAuthConfig(text, { env: { X: 'v' }, ipFiltersAllowed: eula });
        expect(cfg.users.length + (cfg.unauthorizedUser === undefined ? 0 : 1)).toBeGreaterThan(0);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
      }
    }), { numRuns: 2000 });
  });
});
