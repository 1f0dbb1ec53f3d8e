// Coded errors and the error catalog: see coded.ts and docs/ERRORS.md.
export { CodedError, codedError, defineErrors, definedCodes, errorMessage, type Catalog, type Coded, type ErrorDef } from './coded.ts';
