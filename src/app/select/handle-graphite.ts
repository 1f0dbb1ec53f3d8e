import { quoteMeta } from '../../lib/regexp/index.ts';
import { ApiError } from './errors.ts';
import type { ReadContext } from './request-context.ts';
import { DAY_MS } from './time-params.ts';

/** GraphiteNode is one entry of /graphite/metrics/find (DECISIONS.md "Graphite find"). */
export interface GraphiteNode {
  readonly id: string;
  readonly text: string;
  readonly allowChildren: 0 | 1;
  readonly expandable: 0 | 1;
  readonly leaf: 0 | 1;
}

/**
 * globToRegExp turns one Graphite path segment pattern (`*`, `?`, `[a-z]`, `{a,b}`) into an
 * anchored RegExp that never crosses a dot.
 */
export function globToRegExp(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === '*') re += '[^.]*';
    else if (ch === '?') re += '[^.]';
    else if (ch === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end < 0) throw new Error(`unterminated "[" in ${JSON.stringify(segment)}`);
      re += `[${segment.slice(i + 1, end).replace(/[\\\]]/g, '\\$&')}]`;
      i = end;
    } else if (ch === '{') {
      const end = segment.indexOf('}', i + 1);
      if (end < 0) throw new Error(`unterminated "{" in ${JSON.stringify(segment)}`);
      re += `(?:${segment.slice(i + 1, end).split(',').map(escape).join('|')})`;
      i = end;
    } else re += quoteMeta(ch);
  }
  try {
    return new RegExp(`^${re}$`);
  } catch (err) {
    throw new Error(`invalid pattern ${JSON.stringify(segment)}: ${(err as Error).message}`, { cause: err });
  }
}

/** findNodes lists the distinct nodes at the query's depth among dotted metric names; branches and leaves apart. */
export function findNodes(names: Iterable<string>, query: string): GraphiteNode[] {
  const patterns = query.split('.').map(globToRegExp);
  const depth = patterns.length;
  const out = new Map<string, GraphiteNode>();
  for (const name of names) {
    const segs = name.split('.');
    if (segs.length < depth) continue;
    if (!patterns.every((p, i) => p.test(segs[i]!))) continue;
    const id = segs.slice(0, depth).join('.');
    const leaf = segs.length === depth;
    const key = `${leaf ? 'L' : 'B'}${id}`;
    if (!out.has(key)) out.set(key, { id, text: segs[depth - 1]!, allowChildren: leaf ? 0 : 1, expandable: leaf ? 0 : 1, leaf: leaf ? 1 : 0 });
  }
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.leaf - b.leaf));
}

/** handleGraphiteFind serves /graphite/metrics/find and /metrics/find (`query`, optional `from`/`until`, `format=completer`). */
export async function handleGraphiteFind(c: ReadContext): Promise<object> {
  const query = c.params.get('query');
  if (query === undefined || query === '') throw new ApiError('bad_data', 'missing "query" arg, e.g. query=servers.*.cpu');
  const until = Number(c.params.get('until') ?? c.now / 1000) * 1000;
  const from = Number(c.params.get('from') ?? (until - DAY_MS) / 1000) * 1000;
  if (!Number.isFinite(from) || !Number.isFinite(until)) throw new ApiError('bad_data', '"from" and "until" must be unix seconds');
  const names = await c.deps.storage.labelValues({ tenant: c.deps.tenant, matcherSets: [], timeRange: { minTimestamp: Math.min(from, until), maxTimestamp: Math.max(from, until) }, maxSeries: 0 }, '__name__', 0, c.signal);
  let nodes: GraphiteNode[];
  try {
    nodes = findNodes(names, query);
  } catch (err) {
    throw new ApiError('bad_data', `invalid "query" arg: ${(err as Error).message}`, { cause: err });
  }
  if (c.params.get('format') === 'completer') {
    return { metrics: nodes.map((n) => ({ path: n.leaf === 1 ? n.id : `${n.id}.`, name: n.text, is_leaf: String(n.leaf) })) };
  }
  return nodes;
}
