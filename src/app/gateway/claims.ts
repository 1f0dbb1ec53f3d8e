// The access claims of a gateway token (SPEC A1, DECISIONS.md "Naming": `svc_access` is an object
// or a string holding JSON; `exp` is required). Parsing is strict: a claim of the wrong type makes
// the whole token invalid rather than being ignored, so a token never grants more than it says.
import { matchesEmpty, parse, type Expr } from '../../lib/promql/index.ts';

/** AccessMode is svc_access.mode: 0 = full (default), 1 = read, 2 = write. */
export type AccessMode = 'full' | 'read' | 'write';

/** Tenant is a cluster tenant; missing ids are 0 (DECISIONS.md "Cluster routing"). */
export interface Tenant {
  readonly accountID: number;
  readonly projectID: number;
}

/** LabelPair is one `extra_labels` entry. */
export interface LabelPair {
  readonly name: string;
  readonly value: string;
}

/** Claims are the checked claims of one token. */
export interface Claims {
  /** exp is the expiry in seconds since the epoch. */
  readonly exp: number;
  readonly tenant: Tenant;
  /** extraLabels is undefined when the token has no `extra_labels` (the client's own are then kept). */
  readonly extraLabels: readonly LabelPair[] | undefined;
  /** extraFilters is undefined when the token has no `extra_filters`. */
  readonly extraFilters: readonly string[] | undefined;
  readonly mode: AccessMode;
}

/** ClaimsError: the token's claims are missing or of the wrong type; the message names the claim. */
export class ClaimsError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ClaimsError';
  }
}

/** CLAIM is the name of the access claim. */
export const CLAIM = 'svc_access';

const MODES: readonly AccessMode[] = ['full', 'read', 'write'];
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const MAX_UINT32 = 0xffff_ffff;
// Tokens are bounded by the header size, these only keep one claim from holding thousands of entries.
const MAX_ENTRIES = 256;

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** parseClaims checks a decoded JWT payload and returns its claims; throws ClaimsError. Pure. */
export function parseClaims(payload: unknown): Claims {
  if (!isObject(payload)) throw new ClaimsError('the token payload is not a JSON object');
  const exp = payload.exp;
  if (exp === undefined) throw new ClaimsError('the token has no "exp" claim');
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new ClaimsError('the "exp" claim must be a number of seconds since the epoch');
  const access = accessObject(payload[CLAIM]);
  return {
    exp,
    tenant: parseTenant(access.tenant_id),
    extraLabels: access.extra_labels === undefined ? undefined : parseExtraLabels(access.extra_labels),
    extraFilters: access.extra_filters === undefined ? undefined : parseExtraFilters(access.extra_filters),
    mode: parseMode(access.mode),
  };
}

function accessObject(raw: unknown): Obj {
  if (raw === undefined) throw new ClaimsError(`the token has no "${CLAIM}" claim`);
  let v = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch (err) {
      throw new ClaimsError(`the "${CLAIM}" claim is a string but not JSON: ${(err as Error).message}`, { cause: err });
    }
  }
  if (!isObject(v)) throw new ClaimsError(`the "${CLAIM}" claim must be an object (or a string holding one)`);
  return v;
}

function parseTenant(raw: unknown): Tenant {
  if (raw === undefined) return { accountID: 0, projectID: 0 };
  if (!isObject(raw)) throw new ClaimsError(`"${CLAIM}.tenant_id" must be an object with account_id and project_id`);
  return { accountID: tenantId(raw.account_id, 'account_id'), projectID: tenantId(raw.project_id, 'project_id') };
}

function tenantId(v: unknown, name: string): number {
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_UINT32) {
    throw new ClaimsError(`"${CLAIM}.tenant_id.${name}" must be an integer from 0 to ${MAX_UINT32}, not ${JSON.stringify(v)}`);
  }
  return v;
}

function parseExtraLabels(raw: unknown): LabelPair[] {
  if (!isObject(raw)) throw new ClaimsError(`"${CLAIM}.extra_labels" must be an object of label names to string values`);
  const entries = Object.entries(raw);
  if (entries.length > MAX_ENTRIES) throw new ClaimsError(`"${CLAIM}.extra_labels" has more than ${MAX_ENTRIES} labels`);
  return entries.map(([name, value]) => {
    if (!LABEL_NAME.test(name)) throw new ClaimsError(`"${CLAIM}.extra_labels" has an invalid label name ${JSON.stringify(name)}`);
    if (typeof value !== 'string') throw new ClaimsError(`"${CLAIM}.extra_labels.${name}" must be a string`);
    return { name, value };
  }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function parseExtraFilters(raw: unknown): string[] {
  if (!Array.isArray(raw)) throw new ClaimsError(`"${CLAIM}.extra_filters" must be an array of series selectors`);
  if (raw.length > MAX_ENTRIES) throw new ClaimsError(`"${CLAIM}.extra_filters" has more than ${MAX_ENTRIES} selectors`);
  return raw.map((f, i) => {
    if (typeof f !== 'string') throw new ClaimsError(`"${CLAIM}.extra_filters[${i}]" must be a string`);
    checkSelector(f, i);
    return f;
  });
}

// A filter the TSDB would refuse would fail every request of the token at the backend; one that
// matches everything would not confine anything. Both make the token invalid here.
function checkSelector(text: string, i: number): void {
  let e: Expr;
  try {
    e = parse(text);
  } catch (err) {
    throw new ClaimsError(`"${CLAIM}.extra_filters[${i}]" is not a series selector: ${(err as Error).message}`, { cause: err });
  }
  if (e.type !== 'VectorSelector' || e.offset !== null || e.at !== null || e.extended !== null) {
    throw new ClaimsError(`"${CLAIM}.extra_filters[${i}]" must be a plain series selector such as {job="a"}, not ${JSON.stringify(text)}`);
  }
  const sets = e.matcherSets.map((set) => (e.name === '' ? set : [...set, { name: '__name__', op: '=' as const, value: e.name }]));
  if (sets.length === 0 || sets.some((s) => s.length === 0 || s.every((m) => matchesEmpty(m)))) {
    throw new ClaimsError(`"${CLAIM}.extra_filters[${i}]" ${JSON.stringify(text)} must have a label matcher that does not match the empty value`);
  }
}

function parseMode(raw: unknown): AccessMode {
  if (raw === undefined) return 'full';
  if (typeof raw !== 'number' || !Number.isInteger(raw) || MODES[raw] === undefined) {
    throw new ClaimsError(`"${CLAIM}.mode" must be 0 (full), 1 (read) or 2 (write), not ${JSON.stringify(raw)}`);
  }
  return MODES[raw]!;
}

/** mayRead / mayWrite: what a mode allows. */
export const mayRead = (m: AccessMode): boolean => m !== 'write';
export const mayWrite = (m: AccessMode): boolean => m !== 'read';
