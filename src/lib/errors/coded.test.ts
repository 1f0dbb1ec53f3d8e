import { describe, expect, it } from 'vitest';
import { CodedError, codedError, defineErrors, definedCodes, errorMessage } from './index.ts';

describe('defineErrors', () => {
  it('returns each entry with its code and remembers the codes', () => {
    const c = defineErrors({ ERR_TEST_A: { status: 418, message: (d) => `a: ${d}` }, ERR_TEST_B: {} });
    expect(c.ERR_TEST_A.code).toBe('ERR_TEST_A');
    expect(c.ERR_TEST_A.status).toBe(418);
    expect(c.ERR_TEST_B).toEqual({ code: 'ERR_TEST_B' });
    expect(Object.isFrozen(c) && Object.isFrozen(c.ERR_TEST_A)).toBe(true);
    expect(definedCodes()).toEqual(expect.arrayContaining(['ERR_TEST_A', 'ERR_TEST_B']));
  });

  it('refuses a code defined twice and a code not shaped ERR_<MODULE>_<WHAT>', () => {
    defineErrors({ ERR_TEST_TWICE: {} });
    expect(() => defineErrors({ ERR_TEST_TWICE: {} })).toThrow('cannot define error code "ERR_TEST_TWICE": it is already defined');
    expect(() => defineErrors({ test_lower: {} })).toThrow('cannot define error code "test_lower"');
    expect(() => defineErrors({ ERR_: {} })).toThrow('cannot define error code "ERR_"');
  });
});

describe('CodedError', () => {
  const c = defineErrors({ ERR_TEST_CODED: { status: 403, message: (who) => `access from ${who} is denied` }, ERR_TEST_LIB: {} });

  class TestError extends CodedError {
    constructor(message: string, options?: ErrorOptions) {
      super(c.ERR_TEST_LIB, message, options);
    }
  }

  it('keeps code, status, message, cause and the class name', () => {
    const cause = new Error('root');
    const e = new CodedError(c.ERR_TEST_CODED, 'nope', { cause });
    expect({ name: e.name, code: e.code, status: e.status, message: e.message, cause: e.cause }).toEqual({ name: 'CodedError', code: 'ERR_TEST_CODED', status: 403, message: 'nope', cause });
    const t = new TestError('broken');
    expect({ name: t.name, code: t.code, status: t.status, instance: t instanceof CodedError }).toEqual({ name: 'TestError', code: 'ERR_TEST_LIB', status: 500, instance: true });
  });

  it('codedError applies the message template, or uses the detail when there is none', () => {
    expect(codedError(c.ERR_TEST_CODED, '10.0.0.1').message).toBe('access from 10.0.0.1 is denied');
    expect(codedError(c.ERR_TEST_LIB, 'as is').message).toBe('as is');
  });

  it('errorMessage reads any thrown value', () => {
    expect(errorMessage(new Error('x'))).toBe('x');
    expect(errorMessage('s')).toBe('s');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
