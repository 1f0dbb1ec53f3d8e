// Messages between the insert path (main thread) and its parse workers. A job is one request body:
// the main thread sends its decoded chunks, a worker parses them with its own series-key
// dictionary and sends back keyed batches. Messages of one worker arrive in the order it sent
// them, which the key mirror relies on (see NewKeys).

import type { MetadataUpdate } from '../protoparser/common/index.ts';

/**
 * ToWorker is what the main thread sends. `now` (ms) stamps lines without a timestamp;
 * `metadataTenant` (the tenant's `account:project`) asks for the body's metadata lines, absent skips them.
 */
export type ToWorker =
  | { readonly t: 'chunk'; readonly job: number; readonly data: Uint8Array; readonly now: number; readonly metadataTenant?: string | undefined }
  | { readonly t: 'end'; readonly job: number; readonly now: number }
  /** drop: the main thread gave up on the job (its storage failed); forget it. */
  | { readonly t: 'drop'; readonly job: number };

/**
 * NewKeys are keys the worker numbered since its previous batch message, from number `from` on:
 * their texts and labels as [name, value, name, value, …]. They ride on the next batch of any job,
 * which reaches the main thread before every batch that uses them.
 */
export interface NewKeys {
  readonly from: number;
  readonly rawKeys: string[];
  readonly labels: string[][];
}

/** ErrorsSummary is an ErrorSummary as data: the count and the first error's reason and line. */
export interface ErrorsSummary {
  readonly count: number;
  readonly reason?: string;
  readonly line?: number;
}

/** FromWorker is what a worker sends. */
export type FromWorker =
  | {
    readonly t: 'batch';
    readonly job: number;
    readonly length: number;
    readonly keys: Int32Array;
    readonly timestamps: Float64Array;
    readonly values: Float64Array;
    readonly newKeys: NewKeys | undefined;
    /** keyBytes is the worker dictionary's size estimate, so the pool can retire a full one. */
    readonly keyBytes: number;
  }
  /**
   * chunkDone: every batch holding rows of the job's oldest unacknowledged chunk was sent; metadata
   * holds the metadata lines parsed since the previous message that carried some.
   */
  | { readonly t: 'chunkDone'; readonly job: number; readonly metadata: readonly MetadataUpdate[] }
  | { readonly t: 'done'; readonly job: number; readonly lines: number; readonly errors: ErrorsSummary; readonly metadata: readonly MetadataUpdate[] }
  /** failed: the job hit an unexpected error in the worker (a bug); message says which. */
  | { readonly t: 'failed'; readonly job: number; readonly message: string };

/** WorkerConfig is the workerData a parse worker starts with. */
export interface WorkerConfig {
  /** batchSize is about how many rows a batch holds. */
  readonly batchSize: number;
}
