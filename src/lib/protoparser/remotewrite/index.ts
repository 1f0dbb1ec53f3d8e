export { parse, seriesRowsOf, newStats, type RemoteWriteResult, type RemoteWriteStats } from './parse.ts';
export { encodeWriteRequest, encodeWriteRequestSnappy, type WriteSeries } from './encode.ts';
export { readRemoteWriteBody, importRemoteWrite, importRemoteWriteKeyed, type RemoteWriteBodyOptions, type RemoteWriteImportOptions, type RemoteWriteImportSummary, type RemoteWriteKeyedOptions } from './stream.ts';
export { KeyedRemoteWriteParser, type KeyedRemoteWriteOptions } from './parse-keyed.ts';
export { METADATA_TYPES, readMetricMetadata } from './metadata.ts';
