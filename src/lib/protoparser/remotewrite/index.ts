export { parse, type RemoteWriteResult } from './parse.ts';
export { encodeWriteRequest, encodeWriteRequestSnappy, type WriteSeries } from './encode.ts';
export { readRemoteWriteBody, importRemoteWrite, importRemoteWriteKeyed, type RemoteWriteBodyOptions, type RemoteWriteImportOptions, type RemoteWriteImportSummary, type RemoteWriteKeyedOptions } from './stream.ts';
export { KeyedRemoteWriteParser, newStats, type KeyedRemoteWriteOptions, type RemoteWriteStats } from './parse-keyed.ts';
export { METADATA_TYPES, readMetricMetadata } from './metadata.ts';
