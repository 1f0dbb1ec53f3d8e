// Sticky images: the image of every container is recorded in status.resolvedImages before the
// children are applied, and later builds merge spec image fields over the recorded image rather
// than over the operator's current defaults. So a newer operator (with newer default images)
// changes no Pod template of an existing resource; a new resource gets the current defaults.
//
// The record is written under its own field manager and only when it changes. The main status
// writes never carry it, so they neither remove it nor put back an entry a user just removed
// (to opt in to the current default) from a reconcile that read the resource before.
import type { ReconcileContext } from './context.ts';
import type { BuildOptions } from '../factory/common/options.ts';
import { sameImages } from '../factory/common/images.ts';
import type { ResolvedImages } from '../factory/common/images.ts';
import { isNotFound } from '../k8s/errors.ts';
import type { KubeObject } from '../k8s/types.ts';

/** IMAGES_MANAGER_SUFFIX is appended to the operator's field manager for status.resolvedImages. */
export const IMAGES_MANAGER_SUFFIX = '-images';

/** recordedImages reads status.resolvedImages; entries that are not non-empty strings are ignored. */
export function recordedImages(obj: KubeObject): ResolvedImages | undefined {
  const raw = (obj['status'] as { resolvedImages?: unknown } | undefined)?.resolvedImages;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''));
}

/** buildOptionsFor returns the operator's build options with the resource's recorded images. */
export function buildOptionsFor(ctx: ReconcileContext, obj: KubeObject): BuildOptions {
  const recorded = recordedImages(obj);
  return recorded === undefined ? ctx.options.build : { ...ctx.options.build, recordedImages: recorded };
}

/**
 * recordImages writes `images` (the containers of the children about to be applied) to
 * status.resolvedImages unless the resource already records exactly them. Call it before
 * applying the children: should the operator stop in between, the next one (maybe a newer
 * version) still builds the same images. Containers no longer built drop out of the record.
 */
export async function recordImages(ctx: ReconcileContext, obj: KubeObject, images: ResolvedImages): Promise<void> {
  if (sameImages(recordedImages(obj), images)) return;
  const patch: KubeObject = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name: obj.metadata.name!, namespace: obj.metadata.namespace! }, status: { resolvedImages: { ...images } } };
  try {
    await ctx.client.applyStatus(patch, { fieldManager: `${ctx.options.fieldManager}${IMAGES_MANAGER_SUFFIX}`, force: true });
  } catch (err) {
    if (isNotFound(err)) return;
    throw new Error(`cannot record the images of ${obj.kind} "${obj.metadata.name}": ${(err as Error).message}`, { cause: err });
  }
}
