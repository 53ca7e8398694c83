/**
 * kafkajs 2.2.4 frames every request (size, API key and version, correlation id, client id, then the request's
 * own bytes) with two growable encoders: each starts at 511 zero-filled bytes and grows to the next power of
 * two, zero-filled again, and copies what it holds. A produce request of a full record batch (1 MB) cost two
 * zero-filled 2 MB buffers and two copies of the megabyte; a CSV import's QC events send hundreds of them
 * (docs/benchmarks.md, "One buffer per produce request").
 *
 * frameRequest writes the same bytes into one buffer of the exact size with one copy of the request; a
 * request encoded with room in front of it (produceRequest, kafkajs-produce-request.ts) is framed in place,
 * with no copy at all. kafkajs's connection takes the framing function when it loads, which `require('kafkajs')`
 * does: the function is placed in Node's module cache before that, so this module must be imported before
 * anything requires kafkajs (kafka.settings.ts does). Loaded later, kafkajs keeps its own: the same bytes.
 */
import { type EncoderLike, encoderOver } from './kafkajs-record-encoder';
import { installBeforeLoad } from './kafkajs-modules';

/** A request's bytes with `headroom` bytes free in front of them in `room` (they start at room[headroom]). */
export interface RoomyEncoder extends EncoderLike {
  room: Buffer;
  headroom: number;
}

/** Room kept in front of a request encoded in place: size, API key and version, correlation id, a client id of up to 242 bytes. */
export const REQUEST_HEADROOM = 256;

/** What kafkajs's connection hands its framing function. */
export interface FramingInput {
  correlationId: number;
  clientId: string | null | undefined;
  request: { apiKey: number; apiVersion: number; encode: () => Promise<EncoderLike> | EncoderLike };
}

const hasRoom = (payload: EncoderLike, needed: number): payload is RoomyEncoder =>
  'room' in payload && (payload as RoomyEncoder).headroom >= needed;

/** The request as kafkajs sends it: Size (int32), ApiKey, ApiVersion (int16), CorrelationId (int32), ClientId (string), the request. */
export async function frameRequest({
  correlationId,
  clientId,
  request: { apiKey, apiVersion, encode },
}: FramingInput): Promise<EncoderLike> {
  const payload = await encode();
  const clientIdLength = clientId === null || clientId === undefined ? -1 : Buffer.byteLength(clientId, 'utf8');
  const headerSize = 4 + 2 + 2 + 4 + 2 + Math.max(clientIdLength, 0);
  let buf: Buffer;
  let start: number;
  if (hasRoom(payload, headerSize)) {
    buf = payload.room;
    start = payload.headroom - headerSize;
  } else {
    buf = Buffer.allocUnsafe(headerSize + payload.offset);
    payload.buf.copy(buf, headerSize, 0, payload.offset);
    start = 0;
  }
  const end = start + headerSize + payload.offset;
  let offset = buf.writeInt32BE(end - start - 4, start);
  offset = buf.writeInt16BE(apiKey, offset);
  offset = buf.writeInt16BE(apiVersion, offset);
  offset = buf.writeInt32BE(correlationId, offset);
  offset = buf.writeInt16BE(clientIdLength, offset);
  if (clientIdLength > 0) buf.write(clientId as string, offset, clientIdLength, 'utf8');
  return encoderOver(buf.subarray(start, end), end - start);
}

// Deep paths: kafkajs has no `exports` map.
const FRAMING_MODULE = require.resolve('kafkajs/src/protocol/request');
const CONNECTION_MODULE = require.resolve('kafkajs/src/network/connection');

installBeforeLoad(FRAMING_MODULE, frameRequest, CONNECTION_MODULE);
