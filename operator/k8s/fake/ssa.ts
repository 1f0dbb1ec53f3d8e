// Server-side apply, simplified for the fake API server: the field set a manager owns is the set
// of leaf paths of its last applied configuration; lists are atomic (replaced whole). Applying
// removes fields the manager owned before and no longer sets (unless another manager owns
// them), with the objects around them that nobody owns a field of any more, then merges the new
// configuration into the live object.

type Json = unknown;
type JsonObject = Record<string, Json>;
const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** FieldPath is a JSON-encoded array of property names. */
export type FieldPath = string;

/** leafPaths lists the paths of all leaves (scalars, lists, empty objects) of a value. */
export function leafPaths(value: Json, prefix: readonly string[] = []): FieldPath[] {
  if (!isObject(value) || Object.keys(value).length === 0) return prefix.length === 0 ? [] : [JSON.stringify(prefix)];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
}

/** getPath reads a value at a path (undefined when absent). */
export function getPath(value: Json, path: readonly string[]): Json {
  let cur = value;
  for (const seg of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

/** deletePath removes the value at a path in place, and parents it leaves empty. */
export function deletePath(root: JsonObject, path: readonly string[]): void {
  const parents: JsonObject[] = [root];
  let cur: Json = root;
  for (const seg of path.slice(0, -1)) {
    if (!isObject(cur)) return;
    cur = cur[seg];
    if (!isObject(cur)) return;
    parents.push(cur);
  }
  delete parents[parents.length - 1]![path[path.length - 1]!];
  for (let i = parents.length - 1; i > 0; i--) {
    if (Object.keys(parents[i]!).length > 0) break;
    delete parents[i - 1]![path[i - 1]!];
  }
}

/** mergeInto deep-merges cfg into target in place: objects merge, everything else replaces. */
export function mergeInto(target: JsonObject, cfg: JsonObject): void {
  for (const [k, v] of Object.entries(cfg)) {
    const cur = target[k];
    if (isObject(v) && isObject(cur)) mergeInto(cur, v);
    else target[k] = structuredClone(v);
  }
}

/** ApplyResult is the merged object and the new ownership of every manager. */
export interface ApplyResult {
  readonly merged: JsonObject;
  readonly owners: Map<string, Set<FieldPath>>;
  /** conflicts lists fields another manager owns with a different value (non-forced apply fails). */
  readonly conflicts: readonly { readonly path: FieldPath; readonly manager: string }[];
}

/** applyConfig computes a server-side apply of cfg by manager onto live. Pure. */
export function applyConfig(live: JsonObject, cfg: JsonObject, manager: string, owners: ReadonlyMap<string, ReadonlySet<FieldPath>>): ApplyResult {
  const merged = structuredClone(live);
  const next = new Map<string, Set<FieldPath>>([...owners].map(([m, s]) => [m, new Set(s)]));
  const applied = new Set(leafPaths(cfg));
  const conflicts: { path: FieldPath; manager: string }[] = [];
  for (const [m, set] of next) {
    if (m === manager) continue;
    for (const p of applied) {
      if (!set.has(p)) continue;
      const segs = JSON.parse(p) as string[];
      if (JSON.stringify(getPath(live, segs)) !== JSON.stringify(getPath(cfg, segs))) conflicts.push({ path: p, manager: m });
      set.delete(p);
    }
  }
  const ownedByOthers = new Set([...next].filter(([m]) => m !== manager).flatMap(([, s]) => [...s]));
  // A dropped field goes with its highest ancestor under which nobody owns a field any more, as
  // upstream: an object the manager stops applying disappears with the fields nobody owns in it
  // (defaults), unless another manager owns one of them.
  const stillOwned = [...ownedByOthers, ...applied].map((p) => JSON.parse(p) as string[]);
  const ownsUnder = (prefix: readonly string[]) => stillOwned.some((q) => q.length >= prefix.length && prefix.every((seg, i) => q[i] === seg));
  for (const p of next.get(manager) ?? []) {
    if (applied.has(p) || ownedByOthers.has(p)) continue;
    const segs = JSON.parse(p) as string[];
    const depth = segs.findIndex((_, i) => !ownsUnder(segs.slice(0, i + 1)));
    deletePath(merged, segs.slice(0, depth + 1));
  }
  mergeInto(merged, cfg);
  next.set(manager, applied);
  for (const [m, set] of next) if (set.size === 0) next.delete(m);
  return { merged, owners: next, conflicts };
}

/** mergePatch applies an RFC 7386 JSON merge patch, returning a new value. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const out: JsonObject = isObject(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
