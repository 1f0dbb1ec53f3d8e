import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findNodes, globToRegExp } from './handle-graphite.ts';

describe('findNodes', () => {
  const names = ['servers.a.cpu', 'servers.a.mem', 'servers.b.cpu', 'servers', 'other.x'];
  it('lists branches and leaves at the query depth', () => {
    expect(findNodes(names, 'servers.*').map((n) => [n.id, n.leaf])).toEqual([['servers.a', 0], ['servers.b', 0]]);
    expect(findNodes(names, 'servers.a.*').map((n) => [n.id, n.leaf])).toEqual([['servers.a.cpu', 1], ['servers.a.mem', 1]]);
    expect(findNodes(names, '*').map((n) => [n.id, n.leaf])).toEqual([['other', 0], ['servers', 0], ['servers', 1]]);
    expect(findNodes(names, 'servers.{a,b}.c?u').map((n) => n.id)).toEqual(['servers.a.cpu', 'servers.b.cpu']);
    expect(findNodes(names, 'servers.[a].mem')[0]).toEqual({ id: 'servers.a.mem', text: 'mem', allowChildren: 0, expandable: 0, leaf: 1 });
  });

  it('never lets a pattern cross a dot and never throws a non-Error', () => {
    expect(globToRegExp('*').test('a.b')).toBe(false);
    fc.assert(fc.property(fc.string(), (s) => {
      try {
        globToRegExp(s);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
      }
    }));
  });
});
