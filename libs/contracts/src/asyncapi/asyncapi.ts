import { EventEnvelope } from '../events/envelope';
import { consumerGroupOf } from '../services';
import { MESSAGE_HEADERS, TOPIC_CATALOG, type TopicContract, type WorklineApp } from '../topic-catalog';
import { Topic, TOPIC_SPECS } from '../topics';
import { classSchema, contractSchemas, type JsonSchema, SCHEMA_REF_PREFIX } from './json-schema';

/**
 * The AsyncAPI 3 document of Workline's Kafka topics, derived from TOPIC_CATALOG (who writes and reads each
 * topic, its key, its payload class) and TOPIC_SPECS (partitions, retention), with the JSON Schema of each
 * payload derived from its class-validator decorators. Served at GET /docs/asyncapi.json and written to
 * docs/asyncapi.json by `npm run asyncapi`; asyncapi.spec.ts checks both and validates it with @asyncapi/parser.
 * Request-reply topics are internal plumbing and left out (docs/events.md).
 */

const KAFKA_BINDING_VERSION = '0.5.0';
const HOUR_MS = 3_600_000;

const ref = (name: string): JsonSchema => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` });

const topicName = (topic: Topic): string => Object.entries(Topic).find(([, address]) => address === topic)?.[0] as string;
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
const appId = (app: WorklineApp) => app.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** The payload of a message: domain events in their envelope, with `type` the topic and `data` the payload class. */
function payloadSchema(topic: Topic, contract: TopicContract): JsonSchema {
  if (contract.envelope === 'domain-event' && contract.payload) {
    return classSchema(EventEnvelope, { type: { type: 'string', const: topic }, data: ref(contract.payload.name) });
  }
  return { description: "The original message's value, unchanged (JSON for Workline's own topics)." };
}

function readersText(contract: TopicContract): string {
  const readers = [
    ...contract.consumers.map((app) => `${app} (consumer group ${consumerGroupOf(app)})`),
    ...(contract.otherReaders ? [contract.otherReaders] : []),
  ];
  return `Written by ${contract.producers.join(', ')}. Read by ${readers.join('; ')}. Key: ${contract.key}.`;
}

export function asyncApiDocument(): object {
  const documented = (Object.entries(TOPIC_CATALOG) as [Topic, TopicContract][]).filter(
    ([, contract]) => contract.audience !== 'request-reply',
  );
  const left = (Object.entries(TOPIC_CATALOG) as [Topic, TopicContract][])
    .filter(([, contract]) => contract.audience === 'request-reply')
    .map(([topic]) => topic);
  const roots = documented.flatMap(([, contract]) => [
    ...(contract.payload ? [contract.payload] : []),
    ...(contract.envelope === 'rpc' ? [] : [MESSAGE_HEADERS[contract.envelope]]),
  ]);
  const channels: Record<string, object> = {};
  const operations: Record<string, object> = {};
  const messages: Record<string, object> = {};
  for (const [topic, contract] of documented) {
    if (contract.envelope === 'rpc') continue;
    const name = topicName(topic);
    const id = lowerFirst(name);
    const spec = TOPIC_SPECS[topic];
    messages[name] = {
      name,
      title: name,
      summary: contract.summary,
      contentType: 'application/json',
      headers: ref(MESSAGE_HEADERS[contract.envelope].name),
      payload: payloadSchema(topic, contract),
      bindings: { kafka: { key: { type: 'string', description: contract.key }, bindingVersion: KAFKA_BINDING_VERSION } },
    };
    channels[id] = {
      address: topic,
      title: name,
      summary: contract.summary,
      description: readersText(contract),
      tags: [{ name: contract.audience }],
      messages: { [id]: { $ref: `#/components/messages/${name}` } },
      bindings: {
        kafka: {
          topic,
          partitions: spec.partitions,
          topicConfiguration: {
            'retention.ms': spec.retentionHours * HOUR_MS,
            ...(spec.maxMessageBytes ? { 'max.message.bytes': spec.maxMessageBytes } : {}),
          },
          bindingVersion: KAFKA_BINDING_VERSION,
        },
      },
    };
    const operation = (app: WorklineApp, action: 'send' | 'receive') => ({
      action,
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
      title: `${app} ${action === 'send' ? 'writes' : 'reads'} ${topic}`,
      tags: [{ name: `app:${app}` }, { name: contract.audience }],
      ...(action === 'receive'
        ? { bindings: { kafka: { groupId: { type: 'string', enum: [consumerGroupOf(app)] }, bindingVersion: KAFKA_BINDING_VERSION } } }
        : {}),
    });
    for (const app of contract.producers) operations[`${appId(app)}Sends${name}`] = operation(app, 'send');
    for (const app of contract.consumers) operations[`${appId(app)}Receives${name}`] = operation(app, 'receive');
  }
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'Workline Kafka topics',
      version: '1.0.0',
      description: [
        'Every topic Workline writes that others may read (tag public) and the domain events between its own apps (tag internal).',
        'Domain events are JSON envelopes {id, type, occurred_at, data} whose `data` is the topic payload; the ' +
          '`event-id` header repeats `id`, and consumers dedupe on it.',
        'Delivery is at-least-once, in order per key. A topic name never changes in place: an incompatible change gets a new .v2 topic.',
        `Left out: the request-reply topics (${left.join(', ')}), the gateway's internal plumbing (docs/events.md).`,
      ].join('\n\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: '127.0.0.1:9092',
        protocol: 'kafka',
        description: 'The broker `npm start` runs when KAFKA_BROKERS is not set; a deployment names its own brokers in KAFKA_BROKERS.',
      },
    },
    channels,
    operations,
    components: { schemas: contractSchemas(roots), messages },
  };
}
