import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { root } from './deps';
import { fail, ok, step } from './log';
import { commandExists, isAlive, portOpen, readPid, run, spawnPrefixed, stopProcess, waitFor } from './process';

/** A client listener more: clients bootstrapped on `port` are sent to `advertisedPort` (see serverProperties). */
export interface ExtraListener {
  name: string;
  port: number;
  advertisedPort: number;
}

export interface LocalKafka {
  brokers: string[];
  pid: number | undefined;
  stop(): Promise<void>;
}

const cacheDir = path.join(root, '.cache', 'kafka');
const libsDir = path.join(cacheDir, 'libs');

/** Fetches the broker's jars from Maven Central once (tools/kafka/pom.xml). */
export function ensureKafkaJars(): void {
  if (fs.existsSync(libsDir) && fs.readdirSync(libsDir).some((f) => f.startsWith('kafka_2.13'))) return;
  if (!commandExists('java')) {
    fail(
      'Java 17 or newer is needed to run the local Kafka broker (Debian/Ubuntu: apt-get install ' +
        'openjdk-17-jre-headless),\n  or set KAFKA_BROKERS to a Kafka cluster you can reach.',
    );
  }
  if (!commandExists('mvn')) {
    fail(
      'Apache Maven is needed once, to fetch the Kafka broker from Maven Central (Debian/Ubuntu: apt-get install ' +
        'maven),\n  or set KAFKA_BROKERS to a Kafka cluster you can reach.',
    );
  }
  step('fetching Apache Kafka 3.9 from Maven Central (first run only)');
  const staging = `${libsDir}.partial`;
  fs.rmSync(staging, { recursive: true, force: true });
  run('mvn', [
    '-q',
    '-B',
    '-Dstyle.color=never',
    '-f',
    path.join(root, 'tools/kafka/pom.xml'),
    'dependency:copy-dependencies',
    `-DoutputDirectory=${staging}`,
  ]);
  fs.rmSync(libsDir, { recursive: true, force: true });
  fs.renameSync(staging, libsDir);
}

/**
 * `extraListeners`: more client listeners, each { name, port, advertisedPort }: the broker answers a metadata
 * request with the addresses of the listener it arrived on, so clients bootstrapped on `port` come back to
 * `advertisedPort` (where a TCP proxy of the fault suite listens, forwarding to `port`).
 */
function serverProperties({
  port,
  controllerPort,
  dataDir,
  extraListeners = [],
}: {
  port: number;
  controllerPort: number;
  dataDir: string;
  extraListeners?: ExtraListener[];
}): string {
  const extra = (render: (listener: ExtraListener) => string) => extraListeners.map((l) => `,${render(l)}`).join('');
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}${extra((l) => `${l.name}://127.0.0.1:${l.port}`)}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}${extra((l) => `${l.name}://127.0.0.1:${l.advertisedPort}`)}`,
    'controller.listener.names=CONTROLLER',
    `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${extra((l) => `${l.name}:PLAINTEXT`)}`,
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${dataDir}`,
    'num.partitions=3',
    // A single node: without replication factor 1, consumer groups never find a coordinator.
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=10',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=false',
    'log.retention.hours=168',
    '',
  ].join('\n');
}

const log4jProperties = (logFile: string): string =>
  [
    'log4j.rootLogger=WARN, file',
    'log4j.logger.kafka.server.KafkaServer=INFO',
    'log4j.logger.kafka.server.KafkaRaftServer=INFO',
    'log4j.appender.file=org.apache.log4j.FileAppender',
    `log4j.appender.file.File=${logFile}`,
    'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
    '',
  ].join('\n');

/** Whether a broker of `brokers` answers a metadata request. */
export async function brokerAnswers(brokers: string[]): Promise<boolean> {
  const admin = new Kafka({ clientId: 'workline-stack', brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Starts a single-node KRaft broker for a profile ("start" or "test") on the given ports.
 * `fresh` wipes its data first; `extraListeners`: see serverProperties. Returns { brokers, stop }.
 */
export async function startLocalKafka({
  profile,
  port,
  controllerPort,
  fresh = false,
  extraListeners = [],
  signal,
}: {
  profile: string;
  port: number;
  controllerPort: number;
  fresh?: boolean;
  extraListeners?: ExtraListener[];
  /** Aborted: stop waiting for the broker, stop it and throw (npm start interrupted during start-up). */
  signal?: AbortSignal;
}): Promise<LocalKafka> {
  const profileDir = path.join(cacheDir, profile);
  const dataDir = path.join(profileDir, 'data');
  const pidFile = path.join(profileDir, 'broker.pid');
  const brokers = [`127.0.0.1:${port}`];

  const previous = readPid(pidFile);
  if (isAlive(previous)) {
    if (!fresh && (await brokerAnswers(brokers))) {
      ok(`Kafka already running for "${profile}" (${brokers[0]})`);
      return { brokers, stop: async () => undefined, pid: previous };
    }
    await stopProcess(previous);
  }
  if (await portOpen('127.0.0.1', port)) {
    fail(
      `port ${port} is taken by another program, so the local Kafka broker cannot start there.\n  Free it, or set ` +
        `KAFKA_BROKERS to use an existing cluster.`,
    );
  }

  ensureKafkaJars();
  if (fresh) fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const propsFile = path.join(profileDir, 'server.properties');
  const log4jFile = path.join(profileDir, 'log4j.properties');
  fs.writeFileSync(propsFile, serverProperties({ port, controllerPort, dataDir, extraListeners }));
  fs.writeFileSync(log4jFile, log4jProperties(path.join(profileDir, 'broker.log')));
  const classpath = `${libsDir}/*`;
  const jvm = [
    ...(process.env.WORKLINE_KAFKA_JVM_ARGS ?? '').split(/\s+/).filter(Boolean),
    '-Xms256m',
    '-Xmx512m',
    '-XX:+UseG1GC',
    // A produce request is read into one heap buffer; with -Xmx512m G1's regions are 1 MB, so a full record batch
    // (up to max.message.bytes, 1 MB) was a humongous allocation each. 4 MB regions halved the broker's CPU per
    // relayed QC event of a CSV import (docs/benchmarks.md, "The broker's heap regions").
    '-XX:G1HeapRegionSize=4m',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${log4jFile}`,
  ];

  if (!fs.existsSync(path.join(dataDir, 'meta.properties'))) {
    // An id starting with '-' would be read by the storage tool as an option (1 start in 64 failed so).
    let clusterId: string;
    do clusterId = crypto.randomBytes(16).toString('base64url');
    while (clusterId.startsWith('-'));
    run('java', [...jvm, '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propsFile, '--ignore-formatted'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }

  step(`starting Kafka (KRaft, single node) on ${brokers[0]}`);
  const child = spawnPrefixed('kafka', 'java', [...jvm, '-cp', classpath, 'kafka.Kafka', propsFile], {
    env: process.env,
    logFile: path.join(profileDir, 'stdout.log'),
    quiet: true,
  });
  fs.writeFileSync(pidFile, String(child.pid));
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(
    'the Kafka broker to answer',
    async () => {
      if (exited) fail(`the Kafka broker exited during start-up; see ${path.join(profileDir, 'stdout.log')}`);
      return brokerAnswers(brokers);
    },
    // Seconds on a quiet machine; a JVM start under a load of 30 on two cores has taken over 90 s.
    { timeoutMs: 180_000, intervalMs: 500, signal },
  ).catch(async (error: unknown) => {
    // The caller never gets the broker's stop(), so a broker that did start must not outlive this failure.
    await stopProcess(child);
    throw error;
  });
  ok(`Kafka ready (${brokers[0]})`);
  return {
    brokers,
    pid: child.pid,
    stop: async () => {
      await stopProcess(child, 20_000);
      fs.rmSync(pidFile, { force: true });
    },
  };
}
