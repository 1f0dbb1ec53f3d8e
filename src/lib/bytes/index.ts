// lib/bytes: the one little-endian byte reader/writer with LEB128 varints, used by the storage
// formats (parts, index, WAL), the storage RPC frames, the native import format and the protobuf
// reader of remote write.
export { CorruptDataError } from './errors.ts';
export { ByteReader, type DecodeErrorFactory } from './reader.ts';
export { int64Len, unzigzag, uvarintLen, varintLen, zigzag } from './varint.ts';
export { ByteWriter } from './writer.ts';
