// The images a resource's Pods run, by container name: what the operator records in
// status.resolvedImages and feeds back to the builders (BuildOptions.recordedImages), so image
// fields a spec leaves empty keep their values across operator upgrades.
import type { KubeObject } from '../../k8s/types.ts';

/** ResolvedImages maps container names to full image references ("repository:tag"). */
export type ResolvedImages = Readonly<Record<string, string>>;

interface Template {
  spec?: { template?: { spec?: { containers?: readonly { name?: string; image?: string }[] } } };
}

/**
 * templateImages lists the image of every (non-init) container in the Pod templates of built
 * objects. Init containers are left out: the restore init container shares the backup
 * sidecar's image. Throws when two containers of one resource share a name but not an image,
 * as one record could not reproduce both. Pure.
 */
export function templateImages(objects: readonly KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of objects) {
    for (const c of (o as Template).spec?.template?.spec?.containers ?? []) {
      if (c.name === undefined || c.image === undefined) continue;
      const seen = out[c.name];
      if (seen !== undefined && seen !== c.image) throw new Error(`containers named "${c.name}" of ${o.kind} "${o.metadata.name}" run different images (${seen}, ${c.image})`);
      out[c.name] = c.image;
    }
  }
  return out;
}

/** sameImages reports whether two records hold the same containers and images. */
export function sameImages(a: ResolvedImages | undefined, b: ResolvedImages): boolean {
  if (a === undefined) return false;
  const keys = Object.keys(b);
  return Object.keys(a).length === keys.length && keys.every((k) => a[k] === b[k]);
}
