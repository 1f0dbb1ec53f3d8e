import { boolFlag, durationFlag, intFlag } from '../flags/index.ts';
import { StringInterner } from './interner.ts';

const maxLen = intFlag('internStringMaxLen', 500, 'Strings longer than this are not interned; see -internStringCacheExpireDuration');
const expire = durationFlag('internStringCacheExpireDuration', '6m0s', 'Interned strings not used for this long are dropped from the cache');
const disable = boolFlag('internStringDisableCache', false, 'Whether to disable the interned-string cache (lower memory for high-churn labels, more allocations)');

let interner: StringInterner | undefined;

/** processInterner is the process-wide interner configured by -internString* (after flag parsing). */
export function processInterner(): StringInterner {
  interner ??= new StringInterner({ maxLen: maxLen.value, expireMs: expire.value, disabled: disable.value, now: Date.now });
  return interner;
}
