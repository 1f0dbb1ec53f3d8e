// Package metadata: metric metadata (HELP, TYPE, UNIT per family) kept from ingestion for
// /api/v1/metadata: a bounded in-memory store and its file in the storage data directory.
export { MetadataStore, type MetadataQuery, type MetadataReader, type MetricMetadata, type StoredMetadata } from './store.ts';
export { decodeMetadata, encodeMetadata, loadMetadata, METADATA_FILE, MetadataSaver } from './persist.ts';
