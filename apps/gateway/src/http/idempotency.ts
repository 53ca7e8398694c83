import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, parseIdempotencyKey } from '@workline/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * `@IdempotencyKey() key: string | undefined`: the request's Idempotency-Key; a malformed one is a 422
 * (`@IdempotencyKey(102)` on v3: the v3 code "Data is invalid").
 */
export const IdempotencyKey = createParamDecorator((v3Code: number | undefined, context: ExecutionContext): string | undefined => {
  return parseIdempotencyKey(context.switchToHttp().getRequest<FastifyRequest>().headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()], v3Code);
});

/** Marks an answer that replays an earlier creation (`Idempotent-Replayed: true`). */
export function markReplayed(reply: FastifyReply, replayed: boolean): void {
  if (replayed) reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
}
