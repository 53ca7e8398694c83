/**
 * kafkajs 2.2.4 encodes each record of a produce request through a chain of growable encoders: one for the
 * record (a zero-filled 512-byte buffer, grown and copied when the value is larger) and one more per header,
 * each zero-filled 512 bytes too. Our events carry eight headers (CloudEvents attributes, event and request
 * ids), so a record cost about ten allocations and 5 KB of zeroed memory; in a CPU profile of a CSV import
 * with quality control on, record encoding was 10 % of the performance service and the allocations fed its
 * garbage collector (docs/benchmarks.md, "Record encoding").
 *
 * encodeRecord writes the same bytes into one buffer of the exact size, computed first. Anything outside the
 * shapes our producer sends (a header with several values, a number as a value, a timestamp delta beyond
 * int32) goes to kafkajs's own encoder, so the bytes are the protocol's in every case. kafkajs is pinned
 * (package.json); its produce request requires the record encoder lazily, at the first produce, which is
 * why replacing the module's export here, before any client is built, is enough.
 *
 * The record batch's CRC-32C is kafkajs's byte-at-a-time loop (a third of what was left of encoding once
 * records took one buffer). crc32c is the CPU's CRC32 instruction through @node-rs/crc32's prebuilt binary,
 * where one loads, and otherwise crc32cInJs: eight bytes a step from eight tables. The same checksum either way.
 */

import { replaceExport } from './kafkajs-modules';

/** A record as kafkajs's produce request hands it to the encoder. */
export interface KafkaRecordInput {
  offsetDelta?: number;
  timestampDelta?: number;
  key?: Buffer | string | null;
  value?: Buffer | string | null;
  headers?: Record<string, unknown>;
}

/** The part of kafkajs's Encoder the record batch reads: the bytes (`buf`, up to `offset`). */
export interface EncoderLike {
  buf: Buffer;
  offset: number;
}

type RecordEncoder = (record: KafkaRecordInput) => EncoderLike;

// Deep requires: kafkajs has no `exports` map, and these are the module instances its clients use.
/* eslint-disable @typescript-eslint/no-require-imports */
const RECORD_MODULE = require.resolve('kafkajs/src/protocol/recordBatch/record/v0');
const CRC32C_MODULE = require.resolve('kafkajs/src/protocol/recordBatch/crc32C');
const RECORD_BATCH_MODULE = require.resolve('kafkajs/src/protocol/recordBatch/v0');
const PRODUCE_REQUEST_MODULE = require.resolve('kafkajs/src/protocol/requests/produce/v3/request');
const kafkajsEncoder = require('kafkajs/src/protocol/encoder') as { prototype: object };
/** kafkajs's own record encoder, for the shapes encodeRecord leaves to it (and for the tests' comparison). */
export const kafkajsRecord = require(RECORD_MODULE) as RecordEncoder;
/** kafkajs's own CRC-32C of a record batch (for the tests' comparison). */
export const kafkajsCrc32c = require(CRC32C_MODULE) as (bytes: Buffer) => number;
/* eslint-enable @typescript-eslint/no-require-imports */

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

const isInt32 = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;

/** Kafka's signed varints are zigzag-encoded; for an int32 the varlong encoding gives the same bytes. */
const zigzag = (value: number): number => ((value << 1) ^ (value >> 31)) >>> 0;

function varintSize(value: number): number {
  let encoded = zigzag(value);
  let size = 1;
  while (encoded >= 0x80) {
    encoded >>>= 7;
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, offset: number, value: number): number {
  let encoded = zigzag(value);
  while (encoded >= 0x80) {
    buf[offset++] = (encoded & 0x7f) | 0x80;
    encoded >>>= 7;
  }
  buf[offset++] = encoded;
  return offset;
}

/**
 * Strings up to this many characters are measured and written by a loop here: a record has sixteen of them
 * (header names, ids, times), and for those a call into Buffer's native UTF-8 code cost more than the bytes
 * (docs/benchmarks.md, "Short strings of a record").
 */
const SHORT_STRING = 64;

/** UTF-8 byte length of a string; a short one is measured here (its length when it is ASCII). */
function utf8Length(text: string): number {
  if (text.length > SHORT_STRING) return Buffer.byteLength(text, 'utf8');
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return Buffer.byteLength(text, 'utf8');
  return text.length;
}

/** Byte length of a key, value or header value: -1 for none (null), undefined when not a shape handled here. */
function byteLengthOf(bytes: unknown): number | undefined {
  if (bytes === null || bytes === undefined) return -1;
  if (typeof bytes === 'string') return utf8Length(bytes);
  if (Buffer.isBuffer(bytes)) return bytes.length;
  return undefined;
}

const sizeWithLength = (length: number): number => varintSize(length) + (length > 0 ? length : 0);

function writeBytes(buf: Buffer, offset: number, bytes: Buffer | string | null | undefined, length: number): number {
  offset = writeVarint(buf, offset, length);
  if (length <= 0 || bytes === null || bytes === undefined) return offset;
  if (typeof bytes !== 'string') bytes.copy(buf, offset);
  // As many bytes as characters: ASCII, one byte each.
  else if (length === bytes.length && length <= SHORT_STRING) for (let i = 0; i < length; i++) buf[offset + i] = bytes.charCodeAt(i);
  else buf.write(bytes, offset, length, 'utf8');
  return offset + length;
}

/** What writing a record needs to know first: its sizes, measured once. */
export interface RecordLayout {
  /** Bytes of the whole record, its length varint included. */
  size: number;
  bodySize: number;
  offsetDelta: number;
  timestampDelta: number;
  keyLength: number;
  valueLength: number;
  headerNames: string[];
  /** Per header: its name's byte length, then its value's. */
  headerLengths: number[];
}

/**
 * Measures a record in kafkajs's v0 record format; undefined for a shape left to kafkajs's own encoder (a
 * header with several values or a null one, a number as a value, a delta beyond int32).
 */
export function measureRecord(record: KafkaRecordInput): RecordLayout | undefined {
  const { offsetDelta = 0, timestampDelta = 0, key, value, headers = {} } = record;
  const keyLength = byteLengthOf(key);
  const valueLength = byteLengthOf(value);
  if (!isInt32(offsetDelta) || !isInt32(timestampDelta) || keyLength === undefined || valueLength === undefined) return undefined;
  const headerNames = Object.keys(headers);
  const headerLengths = new Array<number>(headerNames.length * 2);
  let headersSize = varintSize(headerNames.length);
  for (let i = 0; i < headerNames.length; i++) {
    const headerValue = headers[headerNames[i]];
    // A null header value is written by kafkajs's own encoder (it measures its length first, and fails).
    if (typeof headerValue !== 'string' && !Buffer.isBuffer(headerValue)) return undefined;
    const nameLength = utf8Length(headerNames[i]);
    const headerValueLength = byteLengthOf(headerValue) as number;
    headerLengths[2 * i] = nameLength;
    headerLengths[2 * i + 1] = headerValueLength;
    headersSize += sizeWithLength(nameLength) + sizeWithLength(headerValueLength);
  }
  const bodySize =
    1 + varintSize(timestampDelta) + varintSize(offsetDelta) + sizeWithLength(keyLength) + sizeWithLength(valueLength) + headersSize;
  return {
    size: varintSize(bodySize) + bodySize,
    bodySize,
    offsetDelta,
    timestampDelta,
    keyLength,
    valueLength,
    headerNames,
    headerLengths,
  };
}

/** Writes a measured record at `offset` of `buf` (which has room for layout.size bytes); returns the offset after it. */
export function writeRecord(buf: Buffer, offset: number, record: KafkaRecordInput, layout: RecordLayout): number {
  offset = writeVarint(buf, offset, layout.bodySize);
  buf[offset++] = 0; // attributes: none used
  offset = writeVarint(buf, offset, layout.timestampDelta);
  offset = writeVarint(buf, offset, layout.offsetDelta);
  offset = writeBytes(buf, offset, record.key, layout.keyLength);
  offset = writeBytes(buf, offset, record.value, layout.valueLength);
  const { headerNames, headerLengths } = layout;
  const headers = record.headers as Record<string, Buffer | string>;
  offset = writeVarint(buf, offset, headerNames.length);
  for (let i = 0; i < headerNames.length; i++) {
    offset = writeBytes(buf, offset, headerNames[i], headerLengths[2 * i]);
    offset = writeBytes(buf, offset, headers[headerNames[i]], headerLengths[2 * i + 1]);
  }
  return offset;
}

/** An Encoder of kafkajs's class over `buf` (kafkajs checks an encoder's `buf`), without the buffer its constructor allocates. */
export function encoderOver(buf: Buffer, offset: number): EncoderLike {
  const encoder = Object.create(kafkajsEncoder.prototype) as EncoderLike;
  encoder.buf = buf;
  encoder.offset = offset;
  return encoder;
}

/** One record in kafkajs's v0 record format (Length, Attributes, deltas, key, value, headers). */
export function encodeRecord(record: KafkaRecordInput): EncoderLike {
  const layout = measureRecord(record);
  if (!layout) return kafkajsRecord(record);
  const buf = Buffer.allocUnsafe(layout.size);
  return encoderOver(buf, writeRecord(buf, 0, record, layout));
}

/** CRC-32C (Castagnoli, reflected polynomial 0x82f63b78): table k maps a byte k positions before the end. */
const CRC_TABLES = (() => {
  const tables = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
    tables[n] = crc;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) tables[k * 256 + n] = (tables[(k - 1) * 256 + n] >>> 8) ^ tables[tables[(k - 1) * 256 + n] & 0xff];
  }
  return tables;
})();

/** The CRC-32C of `bytes` from the tables, as an unsigned 32-bit number (what the record batch header holds). */
export function crc32cInJs(bytes: Buffer): number {
  const t = CRC_TABLES;
  let crc = -1;
  let i = 0;
  for (const whole = bytes.length - (bytes.length % 8); i < whole; i += 8) {
    const low = crc ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    crc =
      t[1792 + (low & 0xff)] ^
      t[1536 + ((low >>> 8) & 0xff)] ^
      t[1280 + ((low >>> 16) & 0xff)] ^
      t[1024 + (low >>> 24)] ^
      t[768 + bytes[i + 4]] ^
      t[512 + bytes[i + 5]] ^
      t[256 + bytes[i + 6]] ^
      t[bytes[i + 7]];
  }
  for (; i < bytes.length; i++) crc = t[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

/**
 * The CPU's CRC32 instruction, about four times the tables' speed over a produce request of QC events
 * (docs/benchmarks.md, "The record batch's checksum in hardware"); undefined where no prebuilt binary loads.
 */
export const nativeCrc32c: ((bytes: Buffer) => number) | undefined = (() => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional: the tables serve where it fails to load
    const { crc32c } = require('@node-rs/crc32') as { crc32c(input: Buffer, initial?: number): number };
    return crc32c(Buffer.from('123456789')) === 0xe3069283 ? (bytes: Buffer) => crc32c(bytes) : undefined;
  } catch {
    return undefined;
  }
})();

/** The CRC-32C of `bytes`, as an unsigned 32-bit number (what the record batch header holds). */
export const crc32c: (bytes: Buffer) => number = nativeCrc32c ?? crc32cInJs;

replaceExport(RECORD_MODULE, encodeRecord, [PRODUCE_REQUEST_MODULE]);
replaceExport(CRC32C_MODULE, crc32c, [RECORD_BATCH_MODULE]);
