import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { runProcess, type StartedProcess, startProcess } from './process-harness.ts';

const FIXTURE = 'test/fixtures/runtime-fixture.ts';
const running: StartedProcess[] = [];
afterEach(() => running.splice(0).forEach((p) => p.kill('SIGKILL')));

async function startFixture(args: string[], env: Record<string, string> = {}) {
  const p = startProcess(FIXTURE, args, env);
  running.push(p);
  const [, addr] = await p.waitForOutput(/listening on http:\/\/(\S+)/);
  return { p, base: `http://${addr}` };
}

describe('process lifecycle', () => {
  it('prints `<binary> <version> (<sha>)` for -version and exits 0', async () => {
    const r = await runProcess(FIXTURE, ['-version'], { STRATA_GIT_SHA: 'deadbeef' });
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/^fixture \d+\.\d+\.\d+ \(deadbeef\)\n$/);
  });

  it('exits 2 with one line naming an unknown flag or a malformed duration', async () => {
    const f = async (args: string[], want: RegExp) => {
      const r = await runProcess(FIXTURE, args);
      expect(r.code).toBe(2);
      expect(r.output.trim().split('\n')).toHaveLength(1);
      expect(r.output).toMatch(want);
    };
    await f(['-nope'], /unknown flag -nope/);
    await f(['-http.connTimeout=soon'], /invalid value "soon" for flag -http\.connTimeout/);
    await f(['-loggerLevel=CHATTY'], /flag -loggerLevel: must be one of INFO, WARN, ERROR, FATAL, PANIC/);
    await f(['-tls'], /-tls needs both -tlsCertFile and -tlsKeyFile/);
    await f(['-httpListenAddr.useProxyProtocol'], /supported only by the gateway and the auth proxy/);
  });

  it('with STRATA_FLAGS_CHECK=1 prints the accepted command line and exits 0 without serving', async () => {
    const ok = await runProcess(FIXTURE, ['-http.connTimeout=5s', 'pos', '-flagsAuthKey=k'], { STRATA_FLAGS_CHECK: '1' });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.output)).toEqual({ binary: 'fixture', flags: { 'http.connTimeout': '5s', flagsAuthKey: 'secret' }, positionals: ['pos'] });
    const bad = await runProcess(FIXTURE, ['-http.connTimeout=soon'], { STRATA_FLAGS_CHECK: '1' });
    expect(bad.code).toBe(2);
    expect(bad.output).toMatch(/invalid value "soon" for flag -http\.connTimeout/);
    const eula = await runProcess(FIXTURE, [], { STRATA_FLAGS_CHECK: '1', FIXTURE_REQUIRE_EULA: '1' });
    expect(eula.code).toBe(2);
  });

  it('refuses to start without -eula when the binary requires it', async () => {
    const r = await runProcess(FIXTURE, [], { FIXTURE_REQUIRE_EULA: '1' });
    expect(r.code).toBe(2);
    expect(r.output).toContain('start it with -eula');
  });

  it('reads flags from the environment with -envflag.enable', async () => {
    const { base } = await startFixture(['-envflag.enable', '-envflag.prefix=S_'], { S_flagsAuthKey: 'k' });
    expect((await request(`${base}/flags`)).statusCode).toBe(401);
    expect((await request(`${base}/flags?authKey=k`)).statusCode).toBe(200);
  });

  it('routes SIGHUP to components that reload', async () => {
    const { p } = await startFixture([]);
    p.kill('SIGHUP');
    await p.waitForOutput(/second reloaded/);
  });

  it('on SIGTERM: 503 during the shutdown delay, in-flight requests finish, components stop in reverse order', async () => {
    const { p, base } = await startFixture(['-http.shutdownDelay=700ms']);
    const inFlight = request(`${base}/slow?ms=900`).then((r) => r.body.text());
    await new Promise((r) => setTimeout(r, 100));
    p.kill('SIGTERM');
    await p.waitForOutput(/answers 503/);
    expect((await request(`${base}/health`)).statusCode).toBe(503);
    expect(await inFlight).toBe('slow done');
    expect(await p.exited).toBe(0);
    const out = p.output();
    const order = ['received SIGTERM', 'stopped the http server in', 'second stopping', 'stopped second in', 'first stopping', 'stopped first in', 'fixture stopped'];
    const positions = order.map((s) => out.indexOf(s));
    expect(positions.every((pos) => pos >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });
});
