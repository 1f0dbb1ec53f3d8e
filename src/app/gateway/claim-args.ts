// Claims become query args of the forwarded request (SPEC A1; DECISIONS.md "Claim extra_labels /
// extra_filters": they replace any the client sent). The TSDB reads `extra_label=name=value`
// (AND-ed into every selector, or added to ingested rows) and `extra_filters[]=<selector>` (OR-ed
// alternatives, also spelled `extra_filters`).
import { type ForcedArgs, NO_FORCED_ARGS } from '../../lib/httpproxy/index.ts';
import type { Claims } from './claims.ts';
import type { RequestKind } from './path-policy.ts';

/** EXTRA_LABEL_NAMES / EXTRA_FILTER_NAMES: the arg names a claim replaces, as the backend decodes them. */
export const EXTRA_LABEL_NAMES: readonly string[] = ['extra_label'];
export const EXTRA_FILTER_NAMES: readonly string[] = ['extra_filters[]', 'extra_filters'];

/**
 * claimArgs returns the args a token forces on requests of one kind: its extra_labels on reads and
 * writes, its extra_filters on reads (they select series; writes have none). A claim the token
 * defines removes the client's args of that name, even when the claim is empty. Pure.
 */
export function claimArgs(c: Claims, kind: RequestKind): ForcedArgs {
  const names = new Set<string>();
  const params = new URLSearchParams();
  if (c.extraLabels !== undefined) {
    for (const n of EXTRA_LABEL_NAMES) names.add(n);
    for (const l of c.extraLabels) params.append('extra_label', `${l.name}=${l.value}`);
  }
  if (kind === 'read' && c.extraFilters !== undefined) {
    for (const n of EXTRA_FILTER_NAMES) names.add(n);
    for (const f of c.extraFilters) params.append('extra_filters[]', f);
  }
  if (names.size === 0) return NO_FORCED_ARGS;
  return { names, encoded: params.toString() };
}
