import type { Logger } from '@nestjs/common';
import type { Consumer } from 'kafkajs';
import { describeError } from './message-errors';
import { settledWithin } from './timeouts';

/**
 * Default silence that is a stall: longer than any silence of a healthy consumer, the longest being a
 * JoinGroup the broker holds for up to kafkajs's rebalanceTimeout (60 s), plus a request timeout (30 s).
 */
export const CONSUMER_STALL_MS = 90_000;

/** How long a stuck consumer may take to leave its group and disconnect before it is left behind. */
export const STUCK_DISCONNECT_MS = 10_000;

/**
 * Tells when a kafkajs consumer has gone silent: no fetch answered, no batch handled, no crash or restart of
 * its own for `stallMs`, while no batch is under way. A healthy consumer is never that quiet: an idle fetch
 * is answered within kafkajs's maxWaitTime (5 s), a failing one times out within requestTimeout (30 s) and
 * is retried or crashes (an event). Once, after a network black hole had healed, a restarted kafkajs
 * consumer fetched for minutes without an answer and never recovered (docs/operations.md, "Known limits");
 * its owner (KafkaTransport, KafkaRpcClient) then replaces the consumer and its connections.
 */
export class ConsumerStallWatch {
  private lastSignOfLife: number;
  private batchesUnderWay = 0;
  private timer?: NodeJS.Timeout;
  private replacing?: Promise<void>;

  constructor(
    readonly stallMs: number,
    now: number,
  ) {
    this.lastSignOfLife = now;
  }

  /** A fetch answered, a group joined, a crash or restart reported: the consumer is alive. */
  alive(now: number): void {
    this.lastSignOfLife = now;
  }

  batchStarted(now: number): void {
    this.batchesUnderWay++;
    this.lastSignOfLife = now;
  }

  batchEnded(now: number): void {
    this.batchesUnderWay = Math.max(0, this.batchesUnderWay - 1);
    this.lastSignOfLife = now;
  }

  /** Takes the consumer's answers from Kafka, its joins and the crashes kafkajs restarts from as signs of life, while it is `current`. */
  follow(consumer: Consumer, current: () => boolean): void {
    const { REQUEST, GROUP_JOIN, CRASH } = consumer.events;
    for (const event of [REQUEST, GROUP_JOIN, CRASH])
      consumer.on(event, () => {
        if (current()) this.alive(Date.now());
      });
  }

  /** Checks every few seconds; on a stall calls `replace`, one replacement at a time, then counts from its end. */
  start(replace: (silentMs: number) => Promise<void>): void {
    this.alive(Date.now());
    this.timer = setInterval(
      () => {
        const silentMs = this.stalledFor(Date.now());
        if (silentMs === undefined || this.replacing) return;
        this.replacing = replace(silentMs).finally(() => {
          this.alive(Date.now());
          this.replacing = undefined;
        });
      },
      Math.min(5_000, this.stallMs / 4),
    );
    this.timer.unref();
  }

  /** The replacement under way, if any (readiness reports it; a close waits for it). */
  get replacement(): Promise<void> | undefined {
    return this.replacing;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** How long the consumer has been silent, when that is a stall; undefined while it is alive or busy. */
  stalledFor(now: number): number | undefined {
    // A handler may take long (a CSV import's batch); kafkajs does not fetch for its partition meanwhile.
    if (this.batchesUnderWay > 0) return undefined;
    const silent = now - this.lastSignOfLife;
    return silent >= this.stallMs ? silent : undefined;
  }
}

/**
 * What an owner does on a stall, once it has let go of the stuck consumer: asks it to leave its group and
 * disconnect, bounded (its connections may be the stuck part), then starts a new one on new connections
 * unless the owner is stopping. A new one that cannot start is tried again after another silence.
 */
export async function replaceStuckConsumer(replacement: {
  /** Names the consumer in the log lines ("consumer of group …", "the reply consumer"). */
  what: string;
  silentMs: number;
  stuck: Consumer | undefined;
  logger: Logger;
  stopping: () => boolean;
  startNew: () => Promise<void>;
}): Promise<void> {
  const { what, logger } = replacement;
  logger.warn(`${what} has had no answer from Kafka for ${Math.round(replacement.silentMs / 1000)} s: replacing it and its connections`);
  if (
    !(await settledWithin(
      replacement.stuck?.disconnect().catch(() => undefined),
      STUCK_DISCONNECT_MS,
    ))
  )
    logger.warn(`${what}: the stuck consumer did not disconnect within ${STUCK_DISCONNECT_MS} ms; left behind`);
  if (replacement.stopping()) return;
  try {
    await replacement.startNew();
  } catch (error) {
    logger.warn(`${what}: could not start a new consumer (${describeError(error)}); trying again after another silence`);
  }
}
