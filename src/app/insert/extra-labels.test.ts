import { describe, expect, it } from 'vitest';
import { ExtraLabeler, parseExtraLabels } from './extra-labels.ts';

describe('extra labels', () => {
  it('parses name=value args, later ones winning, sorted by name', () => {
    expect(parseExtraLabels(['job=b', 'env=x=y', 'job=c'])).toEqual([{ name: 'env', value: 'x=y' }, { name: 'job', value: 'c' }]);
    expect(() => parseExtraLabels(['nope'])).toThrow(/invalid extra_label "nope"/);
    expect(() => parseExtraLabels(['=v'])).toThrow(/invalid extra_label/);
  });

  it('merges into sorted labels, replacing same names, and keeps rawKey unambiguous', () => {
    const l = new ExtraLabeler(parseExtraLabels(['job=forced', 'zone=z']));
    const [row] = l.apply([{ labels: [{ name: '__name__', value: 'up' }, { name: 'job', value: 'mine' }], timestamp: 1, value: 2, rawKey: 'up{job="mine"}' }]);
    expect(row!.labels).toEqual([{ name: '__name__', value: 'up' }, { name: 'job', value: 'forced' }, { name: 'zone', value: 'z' }]);
    expect(row!.rawKey).toBe('[{"name":"job","value":"forced"},{"name":"zone","value":"z"}]\nup{job="mine"}');
  });

  it('removes a label when the extra value is empty', () => {
    const [row] = new ExtraLabeler([{ name: 'a', value: '' }]).apply([{ labels: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }], timestamp: 0, value: 0 }]);
    expect(row!.labels).toEqual([{ name: 'b', value: '2' }]);
  });
});
