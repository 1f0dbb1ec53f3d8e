import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CelRule, JsonSchemaProps } from '../../operator/api/schema.ts';
import { resourcePath } from '../../operator/k8s/rest-client.ts';
import { CUSTOM } from '../../operator/k8s/resources.ts';
import { CrdValidator } from '../k8s/crd-validator.ts';
import type { CrdLike, ValidationResult } from '../k8s/crd-validator.ts';
import { invalidLines } from './client.ts';
import type { KubeResponse } from './client.ts';
import { crdsIn, realCrdServer } from './crds.ts';
import type { RealCrdServer } from './crds.ts';
import { specArb } from './cr-arbitrary.ts';

// The fake API server's CRD validation (test/k8s/crd-validator.ts with the CEL evaluator of
// test/k8s/cel) against the real one: generated custom resources of every kind, most of them near
// a schema bound or a CEL rule's edge, are created with ?dryRun=All on the real API server and
// admitted by the fake. Both must accept or both refuse; accepted objects must be defaulted and
// pruned alike, refused ones refused with the same field errors. Updates are checked the same
// way for the kinds with transition rules (oldSelf).
// STRATA_AGREEMENT_RUNS multiplies the runs for a longer soak (default 1).
const SOAK = Math.max(1, Number(process.env['STRATA_AGREEMENT_RUNS'] ?? '1') || 1);
const BATCH = 24;
const RUNS = 50 * SOAK;
const UPDATE_BATCH = 8;
const UPDATE_RUNS = 12 * SOAK;
const CONCURRENCY = 4;
const NAMESPACE = 'agreement';

type Crd = CrdLike & { spec: { versions: { schema: { openAPIV3Schema: JsonSchemaProps } }[] } };
const crds = crdsIn('crds') as unknown as Crd[];
const fake = new Map(crds.map((c) => [c.spec.names.kind, new CrdValidator(c)]));
const specSchema = (kind: string) => crds.find((c) => c.spec.names.kind === kind)!.spec.versions[0]!.schema.openAPIV3Schema.properties!['spec']!;

/** rulesOf lists the CEL rules of a schema and everything below it. */
function rulesOf(s: JsonSchemaProps): CelRule[] {
  const below = [...Object.values(s.properties ?? {}), ...(s.items === undefined ? [] : [s.items]), ...(s.additionalProperties === undefined ? [] : [s.additionalProperties])];
  return [...(s['x-kubernetes-validations'] ?? []), ...below.flatMap(rulesOf)];
}
/** CREATE_RULES are the messages of the rules that can refuse a create (no oldSelf). */
const CREATE_RULES = [...new Set(crds.flatMap((c) => rulesOf(specSchema(c.spec.names.kind))).filter((r) => !r.rule.includes('oldSelf')).map((r) => r.message))];

interface Case {
  readonly kind: string;
  readonly spec: unknown;
}
const caseArb: fc.Arbitrary<Case> = fc.oneof(...crds.map((c) => specArb(specSchema(c.spec.names.kind)).map((spec): Case => ({ kind: c.spec.names.kind, spec }))));

let real: RealCrdServer;
beforeAll(async () => {
  real = await realCrdServer();
});

/** Tally counts outcomes across all runs, to show the generator reaches both sides of the edges. */
const tally = { accepted: 0, refused: 0, rules: new Map<string, number>() };

const obj = (kind: string, name: string, spec: unknown) => ({ apiVersion: 'strata.dev/v1beta1', kind, metadata: { name, namespace: NAMESPACE }, spec });

/** compare returns why the real server's answer and the fake's admission differ, or undefined. */
function compare(what: string, res: KubeResponse, accepted: number, admitted: ValidationResult): string | undefined {
  if (res.status === accepted) {
    tally.accepted++;
    if (!admitted.ok) return `${what}: the real server accepts it, the fake refuses it: ${admitted.errors.join('; ')}`;
    if (isDeepStrictEqual(res.body['spec'], admitted.object['spec'])) return undefined;
    return `${what}: stored as ${JSON.stringify(res.body['spec'])} by the real server, ${JSON.stringify(admitted.object['spec'])} by the fake`;
  }
  if (res.status !== 422) return `${what}: the real server answered ${res.status}: ${JSON.stringify(res.body)}`;
  tally.refused++;
  const lines = invalidLines(res.body).sort();
  for (const message of CREATE_RULES) if (lines.some((l) => l.endsWith(`Invalid value: ${message}`))) tally.rules.set(message, (tally.rules.get(message) ?? 0) + 1);
  if (admitted.ok) return `${what}: the real server refuses it (${lines.join('; ')}), the fake accepts it`;
  const fakeLines = [...admitted.errors].sort();
  if (isDeepStrictEqual(fakeLines, lines)) return undefined;
  const only = (a: string[], b: string[]) => a.filter((l, i) => a.indexOf(l) === i && a.filter((x) => x === l).length !== b.filter((x) => x === l).length);
  return `${what}: refused with other errors\n  only real: ${only(lines, fakeLines).join('\n             ')}\n  only fake: ${only(fakeLines, lines).join('\n             ')}`;
}

/** createDisagreement dry-run creates one resource on the real server and admits it in the fake. */
async function createDisagreement(c: Case, i: number): Promise<string | undefined> {
  const o = obj(c.kind, `agree-${i}`, c.spec);
  const res = await real.raw.request('POST', resourcePath(CUSTOM[c.kind]!, NAMESPACE), { query: { dryRun: 'All' }, body: o });
  return compare(`${c.kind} spec ${JSON.stringify(c.spec)}`, res, 201, fake.get(c.kind)!.admit(o));
}

/** inPool runs f over items, `limit` at a time. */
async function inPool<T, R>(items: readonly T[], limit: number, f: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!, i);
      }
    }),
  );
  return out;
}

const failWith = (problems: (string | undefined)[], of: number) => {
  const found = problems.filter((p) => p !== undefined);
  if (found.length > 0) throw new Error(`${found.length} of ${of} disagree; the first:\n${found.slice(0, 3).map((p) => p.slice(0, 3000)).join('\n')}`);
};

/** Update is a change of the storage section (the subject of the transition rules) and more. */
interface Update {
  readonly kind: 'TSDBSingle' | 'TSDBCluster';
  readonly from: Record<string, unknown>;
  readonly to: Record<string, unknown>;
}

const volume = fc.record({ size: fc.constantFrom('10Gi', '20Gi', '1e3'), storageClassName: fc.constantFrom('fast', 'slow') }, { requiredKeys: ['size'] });
const storageChange = fc.oneof(
  fc.constant({ from: undefined, to: undefined }),
  volume.map((v) => ({ from: v, to: v })),
  fc.tuple(volume, volume).map(([from, to]) => ({ from, to })),
  volume.map((v) => ({ from: v, to: undefined })),
  volume.map((v) => ({ from: undefined, to: v })),
);
const updateArb: fc.Arbitrary<Update> = fc.oneof(
  fc.tuple(specArb(specSchema('TSDBSingle')), storageChange).map(([spec, s]): Update => {
    const base = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>) : {};
    const { storage: _drop, ...rest } = base;
    return { kind: 'TSDBSingle', from: { retentionPeriod: '1', ...(s.from === undefined ? {} : { storage: s.from }) }, to: { ...rest, ...(s.to === undefined ? {} : { storage: s.to }) } };
  }),
  storageChange.map(
    (s): Update => ({
      kind: 'TSDBCluster',
      from: { storage: { replicas: 2, ...(s.from === undefined ? {} : { storage: s.from }) } },
      to: { storage: { replicas: 3, ...(s.to === undefined ? {} : { storage: s.to }) } },
    }),
  ),
);

let updates = 0;
/** updateDisagreement creates `from` for real, dry-run replaces it with `to`, and asks the fake the same. */
async function updateDisagreement(u: Update, i: number): Promise<string | undefined> {
  const name = `update-${updates++}-${i}`;
  const path = resourcePath(CUSTOM[u.kind]!, NAMESPACE);
  const created = await real.raw.request('POST', path, { body: obj(u.kind, name, u.from) });
  if (created.status !== 201) return `${u.kind} base spec ${JSON.stringify(u.from)} was refused: ${invalidLines(created.body).join('; ')}`;
  const next = { ...created.body, spec: u.to };
  const res = await real.raw.request('PUT', resourcePath(CUSTOM[u.kind]!, NAMESPACE, name), { query: { dryRun: 'All' }, body: next });
  await real.raw.request('DELETE', resourcePath(CUSTOM[u.kind]!, NAMESPACE, name));
  return compare(`${u.kind} update ${JSON.stringify(u.from)} -> ${JSON.stringify(u.to)}`, res, 200, fake.get(u.kind)!.admit(next, created.body));
}

describe('fake and real API server agree on custom resources', () => {
  it(`accept and refuse the same ${BATCH * RUNS} generated resources with the same errors and defaults`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: BATCH, maxLength: BATCH }), async (batch) => failWith(await inPool(batch, CONCURRENCY, createDisagreement), BATCH)),
      { numRuns: RUNS, endOnFailure: true },
    );
    const total = tally.accepted + tally.refused;
    if (SOAK > 1) console.log(`agreement soak: ${tally.accepted} accepted, ${tally.refused} refused; rule refusals ${JSON.stringify([...tally.rules])}`);
    expect(total).toBeGreaterThanOrEqual(BATCH * RUNS);
    // Both sides of the edges are reached: a generator that only made invalid resources would agree trivially.
    expect(tally.accepted / total).toBeGreaterThan(0.15);
    expect(tally.refused / total).toBeGreaterThan(0.15);
    // And the CEL rules themselves refuse resources, not only the schema (a few rare ones may miss a run).
    const missed = CREATE_RULES.filter((m) => !tally.rules.has(m));
    expect(missed.length, `CEL rules that refused nothing: ${missed.join('; ')}`).toBeLessThanOrEqual(Math.floor(CREATE_RULES.length / 5));
  }, 180_000 * SOAK);

  it(`agree on ${UPDATE_BATCH * UPDATE_RUNS} updates under the transition rules`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(updateArb, { minLength: UPDATE_BATCH, maxLength: UPDATE_BATCH }), async (batch) => failWith(await inPool(batch, CONCURRENCY, updateDisagreement), UPDATE_BATCH)),
      { numRuns: UPDATE_RUNS, endOnFailure: true },
    );
  }, 120_000 * SOAK);
});
