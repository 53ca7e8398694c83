export * from './kafka.settings';
export * from './topics.admin';
export * from './producer';
export { DEFAULT_MAX_MESSAGE_BYTES, LIMIT_TTL_MS, MessageTooLargeError, recordSize } from './message-size';
export * from './timeouts';
export * from './message-context';
export * from './message-errors';
export * from './transport';
export * from './rpc-client';
export * from './outbox-writer';
export { BATCH_ROW_MAX_CHARS, batchRowsOf } from './outbox-batch-rows';
export * from './outbox-relay';
export { RELAY_MARK } from './outbox-dead-letters';
export * from './outbox-payload';
export * from './inbox';
export * from './kafka.module';
export * from './rpc-error.filter';
export { RpcHeader, type RpcReply } from './rpc.protocol';
export {
  crc32c,
  crc32cInJs,
  encodeRecord,
  kafkajsCrc32c,
  kafkajsRecord,
  type KafkaRecordInput,
  nativeCrc32c,
} from './kafkajs-record-encoder';
export { kafkajsProduceRequest, produceRequest, type ProduceRequestInput } from './kafkajs-produce-request';
export { frameRequest, type FramingInput } from './kafkajs-request-framing';
