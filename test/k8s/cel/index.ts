// A CEL subset for checking CRD x-kubernetes-validations rules offline.
export { CelParseError, tokenize } from './lexer.ts';
export { parseCel } from './parser.ts';
export type { CelExpr } from './parser.ts';
export { CelEvalError, evaluate, InvalidData } from './evaluate.ts';
