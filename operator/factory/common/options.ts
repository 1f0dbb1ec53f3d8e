// Inputs every builder shares: default images and the workload fields of a spec section.
import type { Image, Resources } from '../../api/common.ts';

/** DefaultImages are full image references ("repo:tag") used where a spec leaves the image empty. */
export interface DefaultImages {
  readonly tsdb: string;
  readonly gateway: string;
  readonly authproxy: string;
  readonly backupmanager: string;
}

/** BuildOptions are the settings builders read (never flags or the environment). */
export interface BuildOptions {
  /** images are the operator-wide defaults, used for containers that have no recorded image. */
  readonly images: DefaultImages;
  /**
   * recordedImages are the images a resource's containers were given before, by container name
   * (its status.resolvedImages). Where present they replace the defaults, so a newer operator
   * with newer defaults keeps running workloads on their images.
   */
  readonly recordedImages?: Readonly<Record<string, string>>;
}

/** baseImage is the image a container's spec image fields are merged over: recorded, else default. */
export function baseImage(opts: BuildOptions, container: string, fallback: keyof DefaultImages): string {
  const recorded = opts.recordedImages?.[container];
  return recorded !== undefined && recorded !== '' ? recorded : opts.images[fallback];
}

/** WorkloadSpec is the part of a spec section that shapes a Pod. */
export interface WorkloadSpec {
  readonly image?: Image;
  readonly resources?: Resources;
  readonly extraArgs?: Readonly<Record<string, string>>;
  readonly extraEnv?: readonly { readonly name: string; readonly value?: string; readonly valueFrom?: Readonly<Record<string, unknown>> }[];
  readonly affinity?: Readonly<Record<string, unknown>>;
  readonly tolerations?: readonly Readonly<Record<string, unknown>>[];
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly priorityClassName?: string;
  readonly podMetadata?: { readonly labels?: Readonly<Record<string, string>>; readonly annotations?: Readonly<Record<string, string>> };
}

/** resolveImage merges a spec image over a default "repo:tag" reference. */
export function resolveImage(spec: Image | undefined, fallback: string): { image: string; pullPolicy: 'Always' | 'IfNotPresent' | 'Never' } {
  const slash = fallback.lastIndexOf('/');
  const colon = fallback.lastIndexOf(':');
  const [repo, tag] = colon > slash ? [fallback.slice(0, colon), fallback.slice(colon + 1)] : [fallback, 'latest'];
  const repository = spec?.repository !== undefined && spec.repository !== '' ? spec.repository : repo;
  const t = spec?.tag !== undefined && spec.tag !== '' ? spec.tag : tag;
  return { image: `${repository}:${t}`, pullPolicy: spec?.pullPolicy ?? 'IfNotPresent' };
}

/**
 * renderArgs turns flag maps into sorted "-name=value" arguments. Later maps override earlier
 * ones (extraArgs last); an undefined value removes a flag. Sorting keeps Pod templates stable.
 */
export function renderArgs(...maps: readonly Readonly<Record<string, string | undefined>>[]): string[] {
  const merged = new Map<string, string | undefined>();
  for (const m of maps) for (const [k, v] of Object.entries(m)) merged.set(k, v);
  return [...merged]
    .filter((e): e is [string, string] => e[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `-${k}=${v}`);
}
