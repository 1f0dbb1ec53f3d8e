// Rows from a remote-write request: the adapter over KeyedRemoteWriteParser (parse-keyed.ts), which
// documents the message and how it is read.

import { KeyedColumns } from '../common/keyed-columns.ts';
import type { ErrorSummary } from '../common/parse-error.ts';
import type { Row } from '../common/row.ts';
import type { MetadataSink } from '../common/metadata.ts';
import { SeriesKeyDictionary } from '../common/series-keys.ts';
import { KeyedRemoteWriteParser, type RemoteWriteStats } from './parse-keyed.ts';

/** RemoteWriteResult is the outcome of parsing one WriteRequest. */
export interface RemoteWriteResult {
  readonly rows: Row[];
  /** Series skipped because of their labels; `item` names them as `timeseries[i]`. */
  readonly errors: ErrorSummary;
  readonly stats: RemoteWriteStats;
}

/**
 * parse decodes a whole WriteRequest into rows: the rows adapter over KeyedRemoteWriteParser (the
 * one remote-write parser), with a dictionary of its own, so rows of one series share one labels
 * array and carry the series' label bytes as rawKey. Throws ParseError when the message is malformed.
 */
export function parse(body: Uint8Array, onMetadata?: MetadataSink): RemoteWriteResult {
  const keys = new SeriesKeyDictionary(Number.MAX_SAFE_INTEGER);
  const out = new KeyedColumns(1024, keys.table);
  const parser = new KeyedRemoteWriteParser(body, { keys, out, onMetadata });
  parser.parse(Infinity);
  return { rows: out.toRows(), errors: parser.errors, stats: parser.stats };
}
