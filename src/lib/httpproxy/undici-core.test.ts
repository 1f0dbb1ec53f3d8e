import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { buildConnector, Pool } from './undici-core.ts';

describe('undici-core', () => {
  it('loads the very Pool and buildConnector the undici index exports', () => {
    expect(Pool).toBe(undici.Pool);
    expect(buildConnector).toBe(undici.buildConnector);
  });

  it('gives a Pool that dispatches (the index adds only convenience methods to its prototype)', async () => {
    const pool = new Pool('http://127.0.0.1:9');
    expect(typeof pool.dispatch).toBe('function');
    expect(typeof pool.close).toBe('function');
    await pool.close();
  });
});
