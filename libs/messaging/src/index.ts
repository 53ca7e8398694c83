export * from './kafka.settings';
export * from './topics.admin';
export * from './producer';
export * from './message-context';
export * from './message-errors';
export * from './transport';
export * from './rpc-client';
export * from './outbox';
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
