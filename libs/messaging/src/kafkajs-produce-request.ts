/**
 * kafkajs 2.2.4 encodes a produce request as a tree of growable encoders: a copy of every message object, a
 * buffer per record, then the record batch, the partition, the topic and the request, each in an encoder of
 * its own that starts at 511 zero-filled bytes, doubles (zero-filled again) as it grows and is copied into
 * the next. A full record batch (1 MB: a CSV import's QC events) was copied about six times through a dozen
 * zero-filled buffers, and the per-message objects and buffers fed the garbage collector (docs/benchmarks.md,
 * "One buffer per produce request").
 *
 * produceRequest encodes the same bytes into one buffer of the exact size, measured first, with room in front
 * for the request's framing (kafkajs-request-framing.ts), so nothing is copied after the records are written.
 * Anything outside what our producer sends (compression, a message timestamp, a record shape measureRecord
 * leaves to kafkajs) is encoded by kafkajs's own request, so the bytes are the protocol's in every case.
 * Produce v4 to v7 are v3's request under another version number; they take it when they load, at the first
 * produce, which is why replacing v3's export here, before any client is built, is enough.
 */
import {
  encoderOver,
  type EncoderLike,
  type KafkaRecordInput,
  measureRecord,
  type RecordLayout,
  crc32c,
  writeRecord,
} from './kafkajs-record-encoder';
import { replaceExport } from './kafkajs-modules';
import { REQUEST_HEADROOM, type RoomyEncoder } from './kafkajs-request-framing';

/** A 64-bit integer as kafkajs carries it (its utils/long: a BigInt inside). */
interface LongLike {
  getHighBits(): number;
  getLowBits(): number;
}

/** A message as kafkajs's producer hands it to the request. */
export interface ProduceMessage extends KafkaRecordInput {
  timestamp?: number | string | null;
  partition?: number;
}

export interface ProducePartitionData {
  partition: number;
  firstSequence?: number;
  messages: ProduceMessage[];
}

export interface ProduceTopicData {
  topic: string;
  partitions: ProducePartitionData[];
}

export interface ProduceRequestInput {
  acks: number;
  timeout: number;
  transactionalId?: string | null;
  producerId?: LongLike | number | string;
  producerEpoch?: number;
  compression?: number;
  topicData: ProduceTopicData[];
}

interface KafkajsProduceRequest {
  apiKey: number;
  apiVersion: number;
  apiName: string;
  expectResponse: () => boolean;
  encode: () => Promise<EncoderLike>;
}

/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs's internal modules, as its clients load them */
const PRODUCE_V3_MODULE = require.resolve('kafkajs/src/protocol/requests/produce/v3/request');
const PRODUCE_V4_MODULE = require.resolve('kafkajs/src/protocol/requests/produce/v4/request');
const PRODUCE_V5_MODULE = require.resolve('kafkajs/src/protocol/requests/produce/v5/request');
/** kafkajs's own produce request (v3), for what produceRequest leaves to it (and for the tests' comparison). */
export const kafkajsProduceRequest = require(PRODUCE_V3_MODULE) as (input: ProduceRequestInput) => KafkajsProduceRequest;
const Long = require('kafkajs/src/utils/long') as { fromValue(value: unknown): LongLike };
/* eslint-enable @typescript-eslint/no-require-imports */

const NO_COMPRESSION = 0;
const MAGIC_BYTE = 2;
const TRANSACTIONAL_ATTRIBUTE = 16;
/** A record set's FirstOffset and Length: the batch's Length counts the bytes after them. */
const RECORD_SET_PREFIX_BYTES = 8 + 4;
/**
 * A record set before its records: the prefix, then PartitionLeaderEpoch, Magic, CRC, Attributes, LastOffsetDelta,
 * FirstTimestamp, MaxTimestamp, ProducerId, ProducerEpoch, FirstSequence, the record count.
 */
const RECORD_BATCH_HEADER_BYTES = RECORD_SET_PREFIX_BYTES + 4 + 1 + 4 + 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4;

function writeInt64(buf: Buffer, offset: number, value: LongLike | number | string): number {
  const long = Long.fromValue(value);
  buf.writeInt32BE(long.getHighBits(), offset);
  buf.writeInt32BE(long.getLowBits(), offset + 4);
  return offset + 8;
}

function writeString(buf: Buffer, offset: number, value: string | null | undefined): number {
  if (value === null || value === undefined) return buf.writeInt16BE(-1, offset);
  const length = Buffer.byteLength(value, 'utf8');
  offset = buf.writeInt16BE(length, offset);
  buf.write(value, offset, length, 'utf8');
  return offset + length;
}

const stringSize = (value: string | null | undefined): number =>
  2 + (value === null || value === undefined ? 0 : Buffer.byteLength(value, 'utf8'));

/**
 * The request's bytes after REQUEST_HEADROOM free bytes, or undefined when kafkajs's own request must write
 * them. Timestamps are kafkajs's: every record's delta is 0 from the batch's first timestamp, taken now.
 */
export function encodeProduceRequest(input: ProduceRequestInput): RoomyEncoder | undefined {
  const { acks, timeout, transactionalId = null, producerId = -1, producerEpoch = 0, compression = NO_COMPRESSION, topicData } = input;
  if (compression !== NO_COMPRESSION) return undefined;
  const layouts: RecordLayout[][][] = [];
  const recordBytes: number[][] = [];
  let size = stringSize(transactionalId) + 2 + 4 + 4;
  for (const { topic, partitions } of topicData) {
    const topicLayouts: RecordLayout[][] = [];
    const topicBytes: number[] = [];
    size += stringSize(topic) + 4;
    for (const { messages } of partitions) {
      const partitionLayouts = new Array<RecordLayout>(messages.length);
      let bytes = 0;
      for (let i = 0; i < messages.length; i++) {
        const message = messages[i];
        if (message.timestamp !== null && message.timestamp !== undefined) return undefined;
        const layout = measureRecord({
          key: message.key,
          value: message.value,
          headers: message.headers,
          offsetDelta: i,
          timestampDelta: 0,
        });
        if (!layout) return undefined;
        partitionLayouts[i] = layout;
        bytes += layout.size;
      }
      topicLayouts.push(partitionLayouts);
      topicBytes.push(bytes);
      size += 4 + 4 + RECORD_BATCH_HEADER_BYTES + bytes;
    }
    layouts.push(topicLayouts);
    recordBytes.push(topicBytes);
  }

  const room = Buffer.allocUnsafe(REQUEST_HEADROOM + size);
  const now = Date.now();
  const attributes = transactionalId ? TRANSACTIONAL_ATTRIBUTE : 0;
  let offset = writeString(room, REQUEST_HEADROOM, transactionalId);
  offset = room.writeInt16BE(acks, offset);
  offset = room.writeInt32BE(timeout, offset);
  offset = room.writeInt32BE(topicData.length, offset);
  for (let t = 0; t < topicData.length; t++) {
    const { topic, partitions } = topicData[t];
    offset = writeString(room, offset, topic);
    offset = room.writeInt32BE(partitions.length, offset);
    for (let p = 0; p < partitions.length; p++) {
      const { partition, firstSequence = 0, messages } = partitions[p];
      const batchLength = RECORD_BATCH_HEADER_BYTES - RECORD_SET_PREFIX_BYTES + recordBytes[t][p];
      offset = room.writeInt32BE(partition, offset);
      offset = room.writeInt32BE(RECORD_SET_PREFIX_BYTES + batchLength, offset); // the record set's size
      offset = writeInt64(room, offset, 0); // FirstOffset
      offset = room.writeInt32BE(batchLength, offset);
      offset = room.writeInt32BE(0, offset); // PartitionLeaderEpoch
      offset = room.writeInt8(MAGIC_BYTE, offset);
      const crcAt = offset;
      offset += 4;
      const checked = offset;
      offset = room.writeInt16BE(attributes, offset);
      offset = room.writeInt32BE(messages.length - 1, offset); // LastOffsetDelta
      offset = writeInt64(room, offset, now); // FirstTimestamp
      offset = writeInt64(room, offset, now); // MaxTimestamp
      offset = writeInt64(room, offset, producerId);
      offset = room.writeInt16BE(producerEpoch, offset);
      offset = room.writeInt32BE(firstSequence, offset);
      offset = room.writeInt32BE(messages.length, offset);
      const partitionLayouts = layouts[t][p];
      for (let i = 0; i < messages.length; i++) {
        offset = writeRecord(room, offset, messages[i], partitionLayouts[i]);
      }
      room.writeUInt32BE(crc32c(room.subarray(checked, offset)), crcAt);
    }
  }
  const encoder = encoderOver(room.subarray(REQUEST_HEADROOM, offset), offset - REQUEST_HEADROOM) as RoomyEncoder;
  encoder.room = room;
  encoder.headroom = REQUEST_HEADROOM;
  return encoder;
}

/** kafkajs's produce request (v3, and v4 to v7 through it) with its bytes written by encodeProduceRequest. */
export function produceRequest(input: ProduceRequestInput): KafkajsProduceRequest {
  const request = kafkajsProduceRequest(input);
  const encodeAsKafkajs = request.encode;
  request.encode = async () => encodeProduceRequest(input) ?? encodeAsKafkajs();
  return request;
}

replaceExport(PRODUCE_V3_MODULE, produceRequest, [PRODUCE_V4_MODULE, PRODUCE_V5_MODULE]);
