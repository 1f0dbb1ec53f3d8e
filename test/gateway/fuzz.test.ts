// fast-check over the token and claims path: whatever the token, the gateway answers (never 500,
// never a dropped connection), and it forwards a request only for a token signed by a trusted key
// with valid claims that allow it.
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/app/gateway/proxy.ts';
import { rawToken, signToken, testKey } from '../../src/app/gateway/testdata/tokens.ts';
import { call } from '../tsdb/client.ts';
import { startUpstream, type Upstream } from './harness.ts';
import { gatewayFlags, type InProcessGateway, startInProcessGateway } from './in-process.ts';

const trusted = testKey('RS256');
const stranger = testKey('RS256');
let gw: InProcessGateway;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream();
  gw = await startInProcessGateway(gatewayFlags({ clusterMode: true, read: parseTarget('read.url', up.url), write: parseTarget('write.url', up.url), publicKeys: [trusted.pem] }));
});
afterAll(async () => {
  await gw?.stop();
  await up?.close();
});

const uint32 = fc.integer({ min: 0, max: 0xffff_ffff });
const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/);
const selector = fc.constantFrom('{env="prod"}', 'up', '{job=~"a.+"}', '{__name__="x",a!="b"}');
const validAccess = fc.record({
  tenant_id: fc.option(fc.record({ account_id: uint32, project_id: uint32 }, { requiredKeys: [] }), { nil: undefined }),
  mode: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined }),
  extra_labels: fc.option(fc.dictionary(labelName, fc.string({ maxLength: 10 }), { maxKeys: 3 }), { nil: undefined }),
  extra_filters: fc.option(fc.array(selector, { maxLength: 3 }), { nil: undefined }),
}, { requiredKeys: [] }).map((a) => JSON.parse(JSON.stringify(a)) as Record<string, unknown>);
const wrong = fc.oneof(fc.string({ maxLength: 5 }), fc.constant(-1), fc.constant(0x1_0000_0000), fc.constant(1.5), fc.constant(null), fc.constant([]), fc.constant({}), fc.boolean());
const invalidAccess = fc.oneof(
  fc.tuple(validAccess, wrong.filter((w) => typeof w !== 'object' || w === null || Array.isArray(w))).map(([a, w]) => ({ ...a, tenant_id: { account_id: w } })),
  fc.tuple(validAccess, fc.oneof(fc.integer({ min: 3, max: 1000 }), fc.integer({ min: -100, max: -1 }), fc.string({ maxLength: 3 }))).map(([a, m]) => ({ ...a, mode: m })),
  fc.tuple(validAccess, fc.constantFrom<unknown>(['a=b'], 'a=b', 5, { 'bad-name': 'x' }, { a: 1 })).map(([a, l]) => ({ ...a, extra_labels: l })),
  fc.tuple(validAccess, fc.constantFrom<unknown>('{a="b"}', [5], ['sum(up)'], ['{a=~".*"}'], ['{'])).map(([a, f]) => ({ ...a, extra_filters: f })),
  fc.constantFrom<unknown>(5, [], null, 'x', true),
);

type Case = { readonly token: string; readonly forwarded: boolean; readonly mode: number };

const signed = fc.record({
  valid: fc.boolean(),
  access: fc.boolean(),
  asString: fc.boolean(),
  expOk: fc.constantFrom('future', 'past', 'missing', 'string'),
  signer: fc.constantFrom('trusted', 'stranger', 'none', 'hs256'),
}).chain((c) => fc.tuple(fc.constant(c), c.valid ? validAccess : invalidAccess)).map(async ([c, access]): Promise<Case> => {
  const now = Math.floor(Date.now() / 1000);
  const exp = c.expOk === 'future' ? now + 600 : c.expOk === 'past' ? now - 60 : c.expOk === 'string' ? String(now + 600) : undefined;
  const svc = c.asString ? JSON.stringify(access) : access;
  const payload: Record<string, unknown> = { svc_access: svc };
  if (exp !== undefined) payload.exp = exp;
  let token: string;
  if (c.signer === 'none') token = rawToken({ alg: 'none' }, payload);
  else if (c.signer === 'hs256') {
    const unsigned = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    token = `${unsigned}.${createHmac('sha256', trusted.pem).update(unsigned).digest('base64url')}`;
  } else token = await signToken(c.signer === 'trusted' ? trusted : stranger, { exp: null, access: undefined, payload });
  const mode = c.valid && typeof (access as { mode?: unknown }).mode === 'number' ? (access as { mode: number }).mode : 0;
  return { token, forwarded: c.valid && c.expOk === 'future' && c.signer === 'trusted', mode };
});

const garbage = fc.oneof(fc.string({ maxLength: 200 }), fc.base64String({ maxLength: 200 }),
  fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((p) => p.map((x) => x.replace(/=/g, '')).join('.')))
  .map((token): Case => ({ token, forwarded: false, mode: 0 }));

describe('the token and claims path (fuzz)', () => {
  it('never crashes and forwards only what a valid token allows', async () => {
    await fc.assert(fc.asyncProperty(fc.oneof(signed.map((p) => p), garbage.map(async (c) => c)), fc.constantFrom('/api/v1/query?query=up', '/api/v1/import/prometheus'), async (pc, path) => {
      const c = await pc;
      const before = up.seen.length;
      const write = path.includes('import');
      const headerValue = `Bearer ${c.token}`.replace(/[^\t\x20-\x7e]/g, '');
      const r = await call(write ? 'POST' : 'GET', `${gw.base}${path}`, write ? 'm 1\n' : undefined, { authorization: headerValue });
      const allowed = c.forwarded && (write ? c.mode !== 1 : c.mode !== 2);
      if (allowed) expect(r.status, r.text).toBe(200);
      else expect([401, 403], `${r.status} ${r.text} for ${c.token.slice(0, 80)}`).toContain(r.status);
      if (c.forwarded && !allowed) expect(r.status).toBe(403);
      expect(up.seen.length - before).toBe(allowed ? 1 : 0);
    }), { numRuns: 400 });
  }, 120_000);
});
