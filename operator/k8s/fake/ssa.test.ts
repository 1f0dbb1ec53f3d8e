import { describe, expect, it } from 'vitest';
import { applyConfig, leafPaths, mergePatch } from './ssa.ts';

describe('applyConfig', () => {
  it('merges, removes dropped fields and keeps fields of other managers', () => {
    const f = (live: object, cfg: object, owners: [string, string[]][], want: object) => {
      const res = applyConfig(live as Record<string, unknown>, cfg as Record<string, unknown>, 'op', new Map(owners.map(([m, p]) => [m, new Set(p)])));
      expect(res.merged).toEqual(want);
    };
    // a new field is added, an existing one changed
    f({ a: 1 }, { a: 2, b: { c: 3 } }, [], { a: 2, b: { c: 3 } });
    // a field the manager applied before and dropped now is removed, with its emptied parent
    f({ a: 1, b: { c: 3 } }, { a: 1 }, [['op', ['["a"]', '["b","c"]']]], { a: 1 });
    // a field set by someone else (e.g. clusterIP) survives
    f({ a: 1, ip: '10.0.0.1' }, { a: 1 }, [['op', ['["a"]']]], { a: 1, ip: '10.0.0.1' });
    // lists are atomic
    f({ l: [1, 2, 3] }, { l: [4] }, [['op', ['["l"]']]], { l: [4] });
    // a field owned by two managers is kept when one drops it
    f({ a: 1, b: 2 }, { a: 1 }, [['op', ['["a"]', '["b"]']], ['other', ['["b"]']]], { a: 1, b: 2 });
    // an object the manager stops applying goes with the fields nobody owns in it (defaults)...
    f({ a: 1, hpa: { max: 3, min: 1 } }, { a: 1 }, [['op', ['["a"]', '["hpa","max"]']]], { a: 1 });
    // ...unless another manager owns one of them: then only the dropped fields go
    f({ a: 1, hpa: { max: 3, cpu: 80, min: 1 } }, { a: 1 }, [['op', ['["a"]', '["hpa","max"]', '["hpa","cpu"]']], ['other', ['["hpa","max"]']]], { a: 1, hpa: { max: 3, min: 1 } });
  });

  it('reports conflicts with other managers and transfers ownership', () => {
    const res = applyConfig({ a: 1 }, { a: 2 }, 'op', new Map([['kubectl', new Set(['["a"]'])]]));
    expect(res.conflicts).toEqual([{ path: '["a"]', manager: 'kubectl' }]);
    expect(res.owners.get('op')).toEqual(new Set(['["a"]']));
    expect(res.owners.has('kubectl')).toBe(false);
  });
});

describe('leafPaths and mergePatch', () => {
  it('lists leaves and applies merge patches', () => {
    expect(leafPaths({ a: { b: 1, c: [1] }, d: {} })).toEqual(['["a","b"]', '["a","c"]', '["d"]']);
    const f = (target: unknown, patch: unknown, want: unknown) => expect(mergePatch(target, patch)).toEqual(want);
    f({ a: 1, b: 2 }, { a: null, c: 3 }, { b: 2, c: 3 });
    f({ a: { x: 1 } }, { a: { y: 2 } }, { a: { x: 1, y: 2 } });
    f({ a: 1 }, [1], [1]);
  });
});
