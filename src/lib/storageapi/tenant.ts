import type { Tenant } from './api.ts';

const UINT32 = /^(0|[1-9]\d{0,9})$/;
const MAX_UINT32 = 0xffff_ffff;

/**
 * parseTenant reads a cluster tenant as written in URLs and flags: `accountID` or
 * `accountID:projectID`, each a decimal uint32 without sign or leading zeros; a missing projectID
 * is 0 (DECISIONS.md "Cluster tenant in URL"). Throws an Error saying what is wrong with `text`.
 */
export function parseTenant(text: string): Tenant {
  const colon = text.indexOf(':');
  const acc = colon < 0 ? text : text.slice(0, colon);
  const proj = colon < 0 ? '0' : text.slice(colon + 1);
  const accountID = parseId(acc);
  const projectID = parseId(proj);
  if (accountID === undefined || projectID === undefined) {
    throw new Error(`invalid tenant ${JSON.stringify(text)}: want accountID or accountID:projectID, each an integer from 0 to ${MAX_UINT32}`);
  }
  return { accountID, projectID };
}

function parseId(s: string): number | undefined {
  if (!UINT32.test(s)) return undefined;
  const n = Number(s);
  return n <= MAX_UINT32 ? n : undefined;
}

/** formatTenant writes a tenant as `accountID:projectID`, the form parseTenant reads back. */
export function formatTenant(t: Tenant): string {
  return `${t.accountID}:${t.projectID}`;
}

/**
 * checkTenant throws for a tenant that is not two uint32s. Storage implementations call it on
 * every request; the network client calls it before encoding (a wire u32 would wrap silently).
 */
export function checkTenant(t: Tenant): void {
  const ok = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
  if (!t || !ok(t.accountID) || !ok(t.projectID)) {
    throw new Error(`invalid tenant ${JSON.stringify(t)}: accountID and projectID must be integers in 0..4294967295`);
  }
}
