// Package regexp: Go RE2 patterns (the syntax of PromQL matchers, relabeling and proxy configs)
// as JavaScript RegExps. Pure; imports nothing of the repo.
export { compileAnchored, quoteMeta, translateRegexp, RegexpSyntaxError } from './regexp.ts';
export { valueSets, type ValueSets, MAX_VALUE_SETS } from './literals.ts';
