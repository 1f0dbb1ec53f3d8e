// Every binary in src/cmd (and the operator's) accepts every flag of SPEC's "Flags common to the
// gateway, auth proxy and backup manager" table (ARCHITECTURE.md §1: all binaries have them), with
// the spec's type and default, and prints `<binary> <version> (<sha>)` for -version.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runProcess } from '../e2e/process-harness.ts';

/** COMMON_FLAGS is SPEC's table: name, type as the spec writes it, and default where it gives one. */
const COMMON_FLAGS: ReadonlyArray<readonly [string, string, string?]> = [
  ['eula', 'bool', 'false'],
  ['enableTCP6', 'bool', 'false'],
  ['envflag.enable', 'bool', 'false'],
  ['envflag.prefix', 'string'],
  ['flagsAuthKey', 'string'],
  ['metricsAuthKey', 'string'],
  ['pprofAuthKey', 'string'],
  ['fs.disableMmap', 'bool', 'false'],
  ['http.connTimeout', 'duration', '2m0s'],
  ['http.disableResponseCompression', 'bool', 'false'],
  ['http.idleConnTimeout', 'duration', '1m0s'],
  ['http.maxGracefulShutdownDuration', 'duration', '7s'],
  ['http.pathPrefix', 'string'],
  ['http.shutdownDelay', 'duration'],
  ['httpAuth.username', 'string'],
  ['httpAuth.password', 'string'],
  ['httpListenAddr', 'string'],
  ['httpListenAddr.useProxyProtocol', 'bool', 'false'],
  ['internStringCacheExpireDuration', 'duration', '6m0s'],
  ['internStringDisableCache', 'bool', 'false'],
  ['internStringMaxLen', 'int', '500'],
  ['loggerDisableTimestamps', 'bool', 'false'],
  ['loggerErrorsPerSecondLimit', 'int', '0'],
  ['loggerWarnsPerSecondLimit', 'int', '0'],
  ['loggerFormat', 'string', 'default'],
  ['loggerJSONFields', 'string'],
  ['loggerLevel', 'string', 'INFO'],
  ['loggerOutput', 'string', 'stderr'],
  ['loggerTimezone', 'string', 'UTC'],
  ['memory.allowedBytes', 'size', '0'],
  ['memory.allowedPercent', 'float', '60'],
  ['pushmetrics.url', 'array'],
  ['pushmetrics.interval', 'duration', '10s'],
  ['pushmetrics.extraLabel', 'array'],
  ['tls', 'bool', 'false'],
  ['tlsCertFile', 'string'],
  ['tlsKeyFile', 'string'],
  ['tlsCipherSuites', 'array'],
  ['tlsMinVersion', 'string'],
  ['version', 'bool'],
];

// How -help names each spec type: enumerations and custom-parsed strings print as "value".
const HELP_TYPES: Readonly<Record<string, readonly string[]>> = {
  bool: ['bool'], string: ['string', 'value'], duration: ['duration'], int: ['int'], float: ['float'], size: ['size'], array: ['array'],
};

/** BINARIES are every entry point: src/cmd/*.ts (the operator's too). */
const BINARIES = readdirSync(join(repoRoot, 'src/cmd')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => `src/cmd/${f}`);

interface HelpEntry {
  readonly type: string;
  readonly defaultText: string | undefined;
}

/** parseHelp reads `-help` output: "  -<name> <type>" lines, then indented help with an optional `(default "…")`. */
function parseHelp(text: string): Map<string, HelpEntry> {
  const out = new Map<string, HelpEntry>();
  let current: { name: string; type: string; defaultText?: string } | undefined;
  const flush = () => current !== undefined && out.set(current.name, { type: current.type, defaultText: current.defaultText });
  for (const line of text.split('\n')) {
    const head = /^ {2}-(\S+) (\S+)/.exec(line);
    if (head !== null) {
      flush();
      current = { name: head[1]!, type: head[2]! };
      continue;
    }
    const def = /^\s+\(default "(.*)"\)$/.exec(line);
    if (def !== null && current !== undefined) current.defaultText = def[1]!;
  }
  flush();
  return out;
}

const VERSION = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

// Up to five binaries start at once here, each loading its whole module graph (1–2 CPU-s): on a
// busy 2-core machine one start has taken over 10 s, so these get more than the default 30 s.
describe.concurrent('common flags of every binary', { timeout: 90_000 }, () => {
  it('finds the binaries (at least tsdb)', () => {
    expect(BINARIES).toContain('src/cmd/tsdb.ts');
  });

  it.each(BINARIES)('%s -help lists every common flag with the spec type and default', async (script) => {
    const r = await runProcess(script, ['-help']);
    expect(r.code, r.output).toBe(0);
    const help = parseHelp(r.output);
    const problems: string[] = [];
    for (const [name, type, def] of COMMON_FLAGS) {
      const e = help.get(name);
      if (e === undefined) problems.push(`-${name} missing`);
      else if (!HELP_TYPES[type]!.includes(e.type)) problems.push(`-${name} is ${e.type}, spec says ${type}`);
      else if (def !== undefined && (e.defaultText ?? 'false') !== def) problems.push(`-${name} defaults to ${JSON.stringify(e.defaultText)}, spec says ${JSON.stringify(def)}`);
    }
    expect(problems).toEqual([]);
  });

  it.each(BINARIES)('%s -version prints `<binary> <version> (<sha>)`', async (script) => {
    const binary = script.split('/').at(-1)!.replace(/\.ts$/, '');
    const r = await runProcess(script, ['-version'], { STRATA_GIT_SHA: '0123456789ab' });
    expect(r.code).toBe(0);
    expect(r.output).toBe(`${binary} ${VERSION} (0123456789ab)\n`);
    // Without the variable the sha comes from the checkout.
    const fromGit = await runProcess(script, ['-version']);
    expect(fromGit.output).toMatch(new RegExp(`^${binary} ${VERSION.replaceAll('.', '\\.')} \\(([0-9a-f]{12}|unknown)\\)\\n$`));
  });
});
