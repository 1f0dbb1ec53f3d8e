import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUANTITY_PATTERN } from '../../api/common.ts';
import { cpuQuantity, queryWorkersFlag } from './query-workers.ts';

describe('queryWorkersFlag', () => {
  it('gives one query worker per whole CPU of the limit beyond the first, none under two, and leaves the flag out without a CPU limit', () => {
    expect(queryWorkersFlag(undefined)).toEqual({});
    expect(queryWorkersFlag({ requests: { cpu: '4' }, limits: { memory: '2Gi' } })).toEqual({});
    expect(queryWorkersFlag({ limits: { cpu: '500m' } })).toEqual({ 'search.queryWorkers': '0' });
    expect(queryWorkersFlag({ limits: { cpu: '1999m' } })).toEqual({ 'search.queryWorkers': '0' });
    expect(queryWorkersFlag({ limits: { cpu: 2 } })).toEqual({ 'search.queryWorkers': '1' });
    expect(queryWorkersFlag({ limits: { cpu: '3.5' } })).toEqual({ 'search.queryWorkers': '2' });
    expect(queryWorkersFlag({ limits: { cpu: '8000m' } })).toEqual({ 'search.queryWorkers': '7' });
  });
});

describe('cpuQuantity', () => {
  it('reads the quantity forms', () => {
    expect(cpuQuantity('250m')).toBe(0.25);
    expect(cpuQuantity('2')).toBe(2);
    expect(cpuQuantity('1.5')).toBe(1.5);
    expect(cpuQuantity('.5')).toBe(0.5);
    expect(cpuQuantity('2e0')).toBe(2);
    expect(cpuQuantity('1k')).toBe(1000);
    expect(cpuQuantity('1Ki')).toBe(1024);
    expect(cpuQuantity(3)).toBe(3);
    expect(() => cpuQuantity('two')).toThrow('cannot read the CPU quantity "two"');
  });

  it('reads every string the CRD accepts and refuses the others (property)', () => {
    const crd = new RegExp(QUANTITY_PATTERN);
    const part = fc.stringMatching(/^[+-]?(\d{1,4}(\.\d{0,3})?|\.\d{1,3})([KMGTPE]i|[numkMGTPE]|[eE][+-]?\d{1,2})?$/);
    fc.assert(fc.property(fc.oneof(part, fc.string({ maxLength: 8 })), (s) => {
      if (crd.test(s)) expect(Number.isNaN(cpuQuantity(s))).toBe(false);
      else expect(() => cpuQuantity(s)).toThrow(/cannot read the CPU quantity/);
    }));
  });
});
