export { header, encodeSeries, MAGIC, VERSION, MAX_BLOCK_BYTES, MAX_SAMPLES_PER_BLOCK, DEFAULT_SAMPLES_PER_BLOCK } from './write.ts';
export { NativeDecoder, parse, seriesRows, type NativeSeries, type NativeDecoderOptions } from './parse.ts';
export { streamNative, type NativeStreamOptions, type NativeStreamSummary } from './stream.ts';
