import { describe, expect, it } from 'vitest';
import { defaultFlagSet, intFlag } from './define.ts';
import { parseProcessFlags } from './process.ts';

const workers = intFlag('test.workers', 1, 'workers for this test');

describe('parseProcessFlags', () => {
  it('prints `<binary> <version> (<sha>)` for -version', () => {
    const out = parseProcessFlags('tsdb', ['-version'], { STRATA_GIT_SHA: 'abc123' });
    expect(out).toEqual({ kind: 'exit', code: 0, stdout: expect.stringMatching(/^tsdb \d+\.\d+\.\d+ \(abc123\)\n$/), stderr: '' });
    defaultFlagSet.mustLookup('version').set(false, false);
  });

  it('prints every flag for -help', () => {
    const out = parseProcessFlags('tsdb', ['-help'], {});
    expect(out.kind === 'exit' && out.stdout).toContain('-test.workers int');
    defaultFlagSet.mustLookup('help').set(false, false);
  });

  it('exits 2 with one line naming an unknown flag', () => {
    const out = parseProcessFlags('tsdb', ['-bogus'], {});
    expect(out).toEqual({ kind: 'exit', code: 2, stdout: '', stderr: 'tsdb: unknown flag -bogus; run with -help to list the flags\n' });
  });

  it('reads the environment only with -envflag.enable, with the prefix', () => {
    const restore = defaultFlagSet.withOverrides({});
    expect(parseProcessFlags('tsdb', [], { S_test_workers: '5' }).kind).toBe('run');
    expect(workers.value).toBe(1);
    expect(parseProcessFlags('tsdb', ['-envflag.enable', '-envflag.prefix=S_'], { S_test_workers: '5' }).kind).toBe('run');
    expect(workers.value).toBe(5);
    restore();
  });
});
