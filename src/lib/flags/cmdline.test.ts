import { describe, expect, it } from 'vitest';
import { applyCommandLine, applyEnvironment, checkRequired } from './cmdline.ts';
import { arrayFlag, boolFlag, durationFlag, enumFlag, floatFlag, intFlag, sizeFlag, stringFlag } from './define.ts';
import { FlagError, FlagSet } from './registry.ts';

function newSet() {
  const set = new FlagSet();
  return {
    set,
    str: stringFlag('httpListenAddr', ':8428', 'listen address', { set }),
    bool: boolFlag('tls', false, 'serve https', { set }),
    int: intFlag('concurrency', 10, 'workers', { set }),
    float: floatFlag('memory.allowedPercent', 60, 'percent', { set }),
    dur: durationFlag('http.connTimeout', '2m0s', 'conn lifetime', { set }),
    size: sizeFlag('memory.allowedBytes', '0', 'bytes', { set }),
    arr: arrayFlag('pushmetrics.url', 'urls', { set }),
    level: enumFlag('loggerLevel', 'INFO', ['INFO', 'WARN', 'ERROR'], 'level', { set }),
    pass: stringFlag('httpAuth.password', '', 'password', { set }),
    req: stringFlag('dst', '', 'destination', { set, required: true }),
  };
}

describe('applyCommandLine', () => {
  it('accepts every syntax form for every flag kind', () => {
    const s = newSet();
    const { positionals } = applyCommandLine(s.set, [
      '-httpListenAddr=:9000', '-tls', '--concurrency', '4', '-memory.allowedPercent=12.5',
      '-http.connTimeout', '1h30m', '--memory.allowedBytes=64MiB', '-pushmetrics.url=a,"b,c"',
      '-pushmetrics.url', 'd', '-loggerLevel=WARN', 'backup', 'list',
    ]);
    expect(s.str.value).toBe(':9000');
    expect(s.bool.value).toBe(true);
    expect(s.int.value).toBe(4);
    expect(s.float.value).toBe(12.5);
    expect(s.dur.value).toBe(5_400_000);
    expect(s.size.value).toBe(64 * 1024 * 1024);
    expect(s.arr.value).toEqual(['a', 'b,c', 'd']);
    expect(s.level.value).toBe('WARN');
    expect(positionals).toEqual(['backup', 'list']);
  });

  it('never lets a bool consume the next argument; -flag=false turns it off', () => {
    const s = newSet();
    expect(applyCommandLine(s.set, ['-tls', 'restore']).positionals).toEqual(['restore']);
    applyCommandLine(s.set, ['-tls=false']);
    expect(s.bool.value).toBe(false);
  });

  it('keeps defaults and reports isSet only for given flags', () => {
    const s = newSet();
    applyCommandLine(s.set, []);
    expect(s.dur.value).toBe(120_000);
    expect(s.dur.isSet).toBe(false);
    expect(s.arr.value).toEqual([]);
  });

  it('treats everything after -- as positional', () => {
    const s = newSet();
    expect(applyCommandLine(s.set, ['--', '-tls']).positionals).toEqual(['-tls']);
    expect(s.bool.value).toBe(false);
  });

  it('fails with one line naming the flag', () => {
    const f = (argv: string[], want: RegExp) => {
      const s = newSet();
      expect(() => applyCommandLine(s.set, argv)).toThrow(FlagError);
      expect(() => applyCommandLine(newSet().set, argv)).toThrow(want);
    };
    f(['-nope=1'], /^unknown flag -nope/);
    f(['-http.connTimeout=5x'], /invalid value "5x" for flag -http\.connTimeout: cannot parse duration/);
    f(['-concurrency=ten'], /invalid value "ten" for flag -concurrency: must be an integer/);
    f(['-tls=maybe'], /for flag -tls: must be true or false/);
    f(['-loggerLevel=LOUD'], /for flag -loggerLevel: must be one of INFO, WARN, ERROR/);
    f(['-memory.allowedBytes=lots'], /for flag -memory\.allowedBytes: cannot parse size/);
    f(['-concurrency'], /^flag -concurrency needs a value/);
    f(['---x'], /bad flag syntax/);
  });
});

describe('applyEnvironment', () => {
  it('fills flags not given on the command line; dots become underscores; command line wins', () => {
    const s = newSet();
    applyCommandLine(s.set, ['-concurrency=3']);
    applyEnvironment(s.set, { VM_concurrency: '7', VM_http_connTimeout: '10s', VM_tls: 'true', VM_pushmetrics_url: 'x,y' }, 'VM_');
    expect(s.int.value).toBe(3);
    expect(s.dur.value).toBe(10_000);
    expect(s.bool.value).toBe(true);
    expect(s.arr.value).toEqual(['x', 'y']);
  });

  it('names the flag when an environment value is bad', () => {
    const s = newSet();
    expect(() => applyEnvironment(s.set, { concurrency: 'x' }, '')).toThrow(/flag -concurrency/);
  });
});

describe('checkRequired', () => {
  it('names a required flag that was not given', () => {
    const s = newSet();
    expect(() => checkRequired(s.set)).toThrow(/^flag -dst is required/);
    applyCommandLine(s.set, ['-dst=fs:///tmp/b']);
    expect(() => checkRequired(s.set)).not.toThrow();
  });
});

describe('FlagSet output', () => {
  it('masks secrets in /flags and the startup log, not other values', () => {
    const s = newSet();
    applyCommandLine(s.set, ['-httpAuth.password=hunter2', '-concurrency=2']);
    const page = s.set.writeFlags();
    expect(page).toContain('-httpAuth.password="secret"\n');
    expect(page).toContain('-concurrency="2"\n');
    expect(page).not.toContain('hunter2');
    expect(s.set.setFlags()).toEqual({ 'httpAuth.password': 'secret', concurrency: '2' });
  });

  it('lists every flag with kind, default and help in -help', () => {
    const s = newSet();
    const help = s.set.help('tsdb');
    expect(help).toMatch(/^Usage of tsdb:/);
    expect(help).toContain('-http.connTimeout duration');
    expect(help).toContain('(default "2m0s")');
    expect(help).toContain('-dst string (required)');
    expect(help).toContain('conn lifetime');
  });

  it('restores overridden values', () => {
    const s = newSet();
    const restore = s.set.withOverrides({ concurrency: 99 });
    expect(s.int.value).toBe(99);
    restore();
    expect(s.int.value).toBe(10);
    expect(s.int.isSet).toBe(false);
  });

  it('lets a binary override a default before parsing', () => {
    const s = newSet();
    s.set.overrideDefault('httpListenAddr', ':8427');
    expect(s.str.value).toBe(':8427');
    expect(s.str.isSet).toBe(false);
  });
});
