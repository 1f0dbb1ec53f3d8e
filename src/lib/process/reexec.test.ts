import { describe, expect, it } from 'vitest';
import { missingTuning, type ReexecOptions, runtimeV8Flags, tunedLaunch } from './reexec.ts';
import { TSDB_TUNING } from './tuning.ts';

const o: ReexecOptions = { keyFlag: '--max-semi-space-size', nodeFlags: ['--max-semi-space-size=4', '--single-threaded-gc'], env: { A: '1', B: '2' }, optOutVar: 'NO_REEXEC' };

describe('missingTuning', () => {
  it('asks for the flags and the variables of a plain start', () => {
    expect(missingTuning(o, [], {})).toEqual(['--max-semi-space-size=4', '--single-threaded-gc']);
    expect(missingTuning(o, ['--enable-source-maps'], { A: '1', B: '2' })).toEqual(['--max-semi-space-size=4', '--single-threaded-gc']);
  });

  it('adds no flags when the key flag is given, and re-executes only for missing variables', () => {
    expect(missingTuning(o, ['--max-semi-space-size=8'], {})).toEqual([]);
    expect(missingTuning(o, [], { NODE_OPTIONS: '--max-semi-space-size=8', A: '1' })).toEqual([]);
    expect(missingTuning(o, ['--max-semi-space-size=8'], { A: '', B: 'x' })).toBeUndefined();
  });

  it('runs as started when opted out', () => {
    expect(missingTuning(o, [], { NO_REEXEC: '1' })).toBeUndefined();
    expect(missingTuning(o, [], { NO_REEXEC: '0' })).toEqual(o.nodeFlags);
  });
});

describe('runtimeV8Flags', () => {
  const v: ReexecOptions = { ...o, v8Flags: ['--heap-growing-percent=30', '--no-memory-reducer'] };
  it('sets the flags not given on the command line, in either spelling, and none when opted out', () => {
    expect(runtimeV8Flags(v, [], {})).toEqual(['--heap-growing-percent=30', '--no-memory-reducer']);
    expect(runtimeV8Flags(v, ['--heap_growing_percent=50'], {})).toEqual(['--no-memory-reducer']);
    expect(runtimeV8Flags(v, ['--heap-growing-percent=50', '--no-memory-reducer'], {})).toEqual([]);
    expect(runtimeV8Flags(v, ['--memory-reducer'], {})).toEqual(['--heap-growing-percent=30']);
    expect(runtimeV8Flags(v, ['--no_memory_reducer'], {})).toEqual(['--heap-growing-percent=30']);
    expect(runtimeV8Flags(v, [], { NO_REEXEC: '1' })).toEqual([]);
    expect(runtimeV8Flags(o, [], {})).toEqual([]);
  });

  it('gives the tsdb the old generation growing factor', () => {
    expect(runtimeV8Flags(TSDB_TUNING, [], {})).toEqual(['--heap-growing-percent=100']);
  });
});

describe('tunedLaunch', () => {
  it('gives what leaves reexecTuned nothing to do, with the compile cache set before the entry loads', () => {
    for (const t of [o, TSDB_TUNING]) {
      const l = tunedLaunch(t, '/cache');
      expect(missingTuning(t, l.nodeFlags, l.env)).toBeUndefined();
      expect(l.env.NODE_COMPILE_CACHE).toBe('/cache');
    }
    expect(tunedLaunch(TSDB_TUNING, '/c')).toEqual({
      nodeFlags: ['--max-semi-space-size=4', '--expose-gc'],
      env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '131072', NODE_COMPILE_CACHE: '/c' },
    });
  });

  it('defaults the cache to the caller\'s NODE_COMPILE_CACHE', () => {
    const before = process.env.NODE_COMPILE_CACHE;
    process.env.NODE_COMPILE_CACHE = '/from-env';
    try {
      expect(tunedLaunch(o).env.NODE_COMPILE_CACHE).toBe('/from-env');
    } finally {
      if (before === undefined) delete process.env.NODE_COMPILE_CACHE;
      else process.env.NODE_COMPILE_CACHE = before;
    }
  });
});
