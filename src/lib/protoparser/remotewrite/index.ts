export { parse, seriesRowsOf, newStats, type RemoteWriteResult, type RemoteWriteStats } from './parse.ts';
export { encodeWriteRequest, encodeWriteRequestSnappy, type WriteSeries } from './encode.ts';
export { readRemoteWriteBody, importRemoteWrite, type RemoteWriteBodyOptions, type RemoteWriteImportOptions, type RemoteWriteImportSummary } from './stream.ts';
