import type { Logger } from '@nestjs/common';
import type { BaseRpcContext, MessageHandler, Server } from '@nestjs/microservices';
import { RpcPattern } from '@workline/contracts';
import type { AppMetrics } from '@workline/observability';
import type { Histogram } from 'prom-client';
import { lastValueFrom } from 'rxjs';
import { describeError } from './message-errors';

export type HandlerKind = 'rpc' | 'event';

/**
 * Calls the app's handlers for both halves of the transport (requests and events): finds them by pattern,
 * turns what they return (a value, a promise, an observable) into its result the way Nest does, and times
 * each call (kafka_handler_duration_seconds) with one log line per outcome.
 */
export class HandlerRunner {
  private readonly duration?: Histogram<'kind' | 'pattern' | 'outcome'>;

  constructor(
    private readonly server: Pick<Server, 'getHandlerByPattern' | 'transformToObservable'>,
    private readonly logger: Logger,
    metrics?: AppMetrics,
  ) {
    this.duration = metrics?.histogram(
      'kafka_handler_duration_seconds',
      'Time a handler took for one message: kind rpc (request-reply) or event, the pattern or topic, outcome ok or ' +
        'error (an event counts each try)',
      ['kind', 'pattern', 'outcome'],
    );
  }

  handlerFor(pattern: string): MessageHandler | null {
    return this.server.getHandlerByPattern(pattern);
  }

  /** The handler's result for `data` (`whenEmpty` if it completes without one), timed under `pattern`. */
  run(
    kind: HandlerKind,
    pattern: string,
    handler: MessageHandler,
    data: unknown,
    context: BaseRpcContext,
    whenEmpty: unknown,
  ): Promise<unknown> {
    return this.timed(kind, pattern, async () =>
      lastValueFrom(this.server.transformToObservable(await handler(data, context)), { defaultValue: whenEmpty }),
    );
  }

  private async timed<T>(kind: HandlerKind, pattern: string, work: () => Promise<T>): Promise<T> {
    const stop = this.duration?.startTimer({ kind, pattern });
    const started = Date.now();
    try {
      const result = await work();
      stop?.({ outcome: 'ok' });
      if (pattern !== RpcPattern.Health)
        this.logger.log({ msg: `${kind} ${pattern} handled`, kind, pattern, outcome: 'ok', duration_ms: Date.now() - started });
      return result;
    } catch (error) {
      stop?.({ outcome: 'error' });
      this.logger.log({
        msg: `${kind} ${pattern} failed: ${describeError(error)}`,
        kind,
        pattern,
        outcome: 'error',
        duration_ms: Date.now() - started,
      });
      throw error;
    }
  }
}
