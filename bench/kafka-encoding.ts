/**
 * Encoding a produce request's records: kafkajs 2.2.4's own record encoder and CRC-32C against the ones
 * libs/messaging installs in their place (kafkajs-record-encoder.ts), in the same process, on the same
 * messages. No broker: this is the CPU an app spends per record before a byte reaches the socket.
 *
 *   npm run bench:encoding
 *
 * Two shapes: a QC event as the outbox relay sends it (about 1.1 KB of JSON, eight headers) and an RPC request
 * as the gateway sends it (about 600 bytes, four headers). Each is encoded in batches of 500 records (the
 * relay's batch), the CRC taken over the batch's bytes as the record batch does.
 * Then whole produce requests as the connection writes them (framed): a full record batch of QC events (1,000,
 * about 1.1 MB) through kafkajs's produce request and framing (with the record encoder above, as before
 * kafkajs-produce-request.ts) against produceRequest and frameRequest.
 * Then the record batch's checksum alone over such a request's records: kafkajs's loop, the tables and the CPU's
 * CRC32 instruction (@node-rs/crc32), three rounds each in turn, the least CPU of each.
 * Settings: BENCH_ENCODING_BATCHES (default 400) batches per measure, after 50 of warm-up.
 */
import { cloudEventHeaders, Topic } from '@workline/contracts';
import {
  crc32c,
  crc32cInJs,
  encodeRecord,
  frameRequest,
  type FramingInput,
  kafkajsCrc32c,
  kafkajsProduceRequest,
  type KafkaRecordInput,
  kafkajsRecord,
  nativeCrc32c,
  produceRequest,
  type ProduceRequestInput,
} from '@workline/messaging';
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';

const BATCHES = Number(process.env.BENCH_ENCODING_BATCHES ?? 400);
const BATCH = 500;

type Encode = (record: KafkaRecordInput) => { buf: Buffer; offset: number };

const EVENT_ID = 'b1946ac9-2f3c-4b65-8a3a-0c1f0e9e2c11';
/** The headers the outbox relay gives a QC event: CloudEvents attributes, the event id, the request id. */
const qcEventHeaders = {
  ...cloudEventHeaders({ id: EVENT_ID, type: Topic.QualityReviewForQc, occurred_at: '2026-11-27T09:30:00.000Z' }, 'performance'),
  'event-id': EVENT_ID,
  'request-id': 'b3c1a2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
};

const shapes: { name: string; record: (index: number) => KafkaRecordInput }[] = [
  {
    name: 'QC event (1.1 KB JSON, 8 headers)',
    record: (index) => ({
      key: '0b71c53a-d42c-4221-bf0c-71399d2b7a9f',
      value: JSON.stringify({
        id: `event-${index}`,
        type: Topic.QualityReviewForQc,
        data: { pad: 'p'.repeat(1_000) },
      }),
      headers: qcEventHeaders,
    }),
  },
  {
    name: 'RPC request (600 B JSON, 4 headers)',
    record: (index) => ({
      key: null,
      value: JSON.stringify({ pattern: 'performance.records.submit', data: { unique_id: `row-${index}`, pad: 'p'.repeat(520) } }),
      headers: {
        'reply-to': 'workline.gateway.rpc-replies.v1',
        'correlation-id': `c-${index}`,
        'request-id': `r-${index}`,
        'reply-partition': '0',
      },
    }),
  },
];

/** CPU µs per record of encoding `messages` in batches as a produce request does: records, then the batch CRC. */
function measure(messages: KafkaRecordInput[], encode: Encode, crc: (bytes: Buffer) => number): number {
  const once = () => {
    const records = messages.map((message, offsetDelta) => encode({ ...message, offsetDelta, timestampDelta: 0 }));
    crc(Buffer.concat(records.map((record) => record.buf.subarray(0, record.offset))));
  };
  for (let i = 0; i < 50; i++) once();
  const start = process.cpuUsage();
  for (let i = 0; i < BATCHES; i++) once();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (BATCHES * messages.length);
}

console.log(`== Kafka record encoding: ${BATCHES} batches of ${BATCH} records per measure`);
console.log('| records | kafkajs 2.2.4 (µs CPU per record) | libs/messaging (µs CPU per record) | ÷ |');
console.log('|---|---:|---:|---:|');
for (const shape of shapes) {
  const messages = Array.from({ length: BATCH }, (_, index) => shape.record(index));
  const kafkajs = measure(messages, kafkajsRecord as unknown as Encode, kafkajsCrc32c);
  const ours = measure(messages, encodeRecord, crc32c);
  console.log(`| ${shape.name} | ${kafkajs.toFixed(2)} | ${ours.toFixed(2)} | ${(ours / kafkajs).toFixed(2)} |`);
}

/** kafkajs's own framing: libs/messaging placed frameRequest in the module cache in its stead, so it is compiled afresh here. */
function kafkajsFraming(): (input: FramingInput) => Promise<{ buf: Buffer; offset: number }> {
  const file = require.resolve('kafkajs/src/protocol/request');
  const fresh = new Module(file) as Module & { _compile(source: string, file: string): void };
  fresh.filename = file;
  fresh.paths = [path.join(path.dirname(file), 'node_modules'), ...(module.paths ?? [])];
  fresh._compile(fs.readFileSync(file, 'utf8'), file);
  return fresh.exports;
}

type Produce = (input: ProduceRequestInput) => FramingInput['request'];
type Frame = (input: FramingInput) => Promise<{ buf: Buffer; offset: number }>;

/** CPU µs per record of building and framing `requests` produce requests of `input`. */
async function measureRequests(
  input: ProduceRequestInput,
  records: number,
  requests: number,
  produce: Produce,
  frame: Frame,
): Promise<number> {
  const once = () => frame({ correlationId: 1, clientId: 'workline-performance-3f2a9c', request: produce(input) });
  for (let i = 0; i < 20; i++) await once();
  const start = process.cpuUsage();
  for (let i = 0; i < requests; i++) await once();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (requests * records);
}

void (async () => {
  const REQUEST_RECORDS = 1_000;
  const requests = Math.max(20, Math.round((BATCHES * BATCH) / REQUEST_RECORDS));
  const messages = Array.from({ length: REQUEST_RECORDS }, (_, index) => shapes[0].record(index));
  const input: ProduceRequestInput = {
    acks: -1,
    timeout: 30_000,
    producerId: 4_711,
    producerEpoch: 0,
    topicData: [{ topic: Topic.QualityReviewForQc, partitions: [{ partition: 0, firstSequence: 0, messages }] }],
  };
  console.log(`\n== Produce requests, framed: ${requests} requests of ${REQUEST_RECORDS} QC events per measure`);
  console.log('| request | kafkajs 2.2.4 request and framing (µs CPU per record) | libs/messaging (µs CPU per record) | ÷ |');
  console.log('|---|---:|---:|---:|');
  const kafkajs = await measureRequests(input, REQUEST_RECORDS, requests, kafkajsProduceRequest as Produce, kafkajsFraming());
  const ours = await measureRequests(input, REQUEST_RECORDS, requests, produceRequest as Produce, frameRequest);
  console.log(
    `| ${REQUEST_RECORDS} QC events, one partition | ${kafkajs.toFixed(2)} | ${ours.toFixed(2)} | ${(ours / kafkajs).toFixed(2)} |`,
  );
  measureChecksums(
    Buffer.concat(
      messages.map((message, offsetDelta) => {
        const record = encodeRecord({ ...message, offsetDelta, timestampDelta: 0 });
        return record.buf.subarray(0, record.offset);
      }),
    ),
    REQUEST_RECORDS,
  );
})();

/** The record batch's CRC-32C alone over `batch` (the records of one request): µs of CPU per record, each way. */
function measureChecksums(batch: Buffer, records: number): void {
  type Way = { name: string; checksum: (bytes: Buffer) => number; least: number };
  const ways: Way[] = [
    { name: "kafkajs 2.2.4's loop", checksum: kafkajsCrc32c, least: Infinity },
    { name: 'tables (crc32cInJs)', checksum: crc32cInJs, least: Infinity },
  ];
  if (nativeCrc32c) ways.push({ name: 'CPU instruction (@node-rs/crc32)', checksum: nativeCrc32c, least: Infinity });
  const times = Math.max(20, Math.round((BATCHES * BATCH) / records));
  for (let round = 0; round < 3; round++) {
    for (const way of ways) {
      for (let i = 0; i < 5; i++) way.checksum(batch);
      const start = process.cpuUsage();
      for (let i = 0; i < times; i++) way.checksum(batch);
      const used = process.cpuUsage(start);
      way.least = Math.min(way.least, (used.user + used.system) / (times * records));
    }
  }
  console.log(
    `\n== The record batch's CRC-32C alone: ${times} batches of ${records} QC events ` +
      `(${batch.length.toLocaleString('en')} bytes), least of 3 rounds`,
  );
  console.log('| checksum | µs CPU per record | ÷ kafkajs |');
  console.log('|---|---:|---:|');
  for (const { name, checksum, least } of ways)
    console.log(`| ${name}${checksum === crc32c ? ' (in use)' : ''} | ${least.toFixed(2)} | ${(least / ways[0].least).toFixed(2)} |`);
}
