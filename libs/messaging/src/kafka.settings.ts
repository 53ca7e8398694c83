// Before kafkajs loads: its producers take the linear partition grouping, its connections the one-buffer
// request framing, when they load.
import './kafkajs-partition-grouping';
import './kafkajs-request-framing';
import { Logger } from '@nestjs/common';
import { consumerGroupOf } from '@workline/contracts';
import { type ISocketFactory, Kafka, logLevel, type LogEntry } from 'kafkajs';
// Before any client exists: every kafkajs connection of the app gets the fixed request queue, and every
// produce request the one-buffer encoding.
import './kafkajs-request-queue';
import './kafkajs-record-encoder';
import './kafkajs-produce-request';

/** What an app needs to talk to Kafka. One consumer group per app; a unique client id per instance. */
export interface KafkaSettings {
  brokers: string[];
  /** The app's name: its consumer group is `workline-<app>`. */
  app: string;
  instanceId: string;
  /** Consumer session timeout (KAFKA_SESSION_TIMEOUT_MS): how soon a crashed instance's partitions move on. Default 30 s. */
  sessionTimeoutMs?: number;
  /** Opens the client's connections (kafkajs's own by default); a test routes them through a proxy it controls. */
  socketFactory?: ISocketFactory;
}

/** Session and heartbeat settings of every consumer of an app (heartbeats at a tenth of the session, at most 3 s). */
export const consumerTimeouts = (settings: KafkaSettings) => {
  const sessionTimeout = settings.sessionTimeoutMs ?? 30_000;
  return { sessionTimeout, heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeout / 10)) };
};

/** Injection token of the app's KafkaSettings. */
export const KAFKA_SETTINGS = Symbol('KAFKA_SETTINGS');

/** The Kafka client id of an app's instance (a consumer group lists its members by it). */
export const kafkaClientIdOf = (app: string, instanceId: string): string => `${consumerGroupOf(app)}-${instanceId}`;

const levels: Record<number, 'error' | 'warn' | 'log' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'log',
  [logLevel.DEBUG]: 'debug',
};

const NOISE = new RegExp(
  [
    'rebalancing',
    'Not leader',
    'coordinator is loading',
    'coordinator is not available',
    'Limiting retries for the idempotent producer',
    'switched default partitioner',
    '^Response CreateTopics\\(',
  ].join('|'),
  'i',
);

/** kafkajs logs through Nest's logger, warnings and errors only (its info level is very chatty). */
function nestLogCreator() {
  return ({ namespace, level, log }: LogEntry) => {
    const logger = new Logger(`kafka:${namespace}`);
    const { message, ...extra } = log;
    // Transient states kafkajs retries by itself (a broker still loading, a rebalance) are logged as
    // errors; so is the warning that finite retries weaken idempotence (we bound them on purpose: every
    // send has a caller waiting with a deadline). Apps starting together all create the missing topics, and all
    // but the first are told they exist: kafkajs logs that answer as an error, then accepts it; any other
    // creation error fails ensureTopics, which names each topic and reason.
    if (NOISE.test(`${message} ${String(extra.error ?? '')}`)) return;
    logger[levels[level] ?? 'log'](`${message}${extra.error ? `: ${extra.error}` : ''}`);
  };
}

export function createKafka(settings: KafkaSettings): Kafka {
  return new Kafka({
    clientId: kafkaClientIdOf(settings.app, settings.instanceId),
    brokers: settings.brokers,
    socketFactory: settings.socketFactory,
    logLevel: logLevel.WARN,
    logCreator: nestLogCreator,
    connectionTimeout: 3000,
    requestTimeout: 30_000,
    // Keep reconnecting while a broker restarts, instead of giving up after kafkajs' default ~5 tries.
    retry: { initialRetryTime: 300, maxRetryTime: 5000, retries: 50 },
  });
}
