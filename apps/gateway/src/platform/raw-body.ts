import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The parsed JSON body as it came, past the global StrictValidationPipe (which does not validate custom
 * decorators): the platform API's 422/v3 texts are the spec's, so platform-runs validates the body.
 * No body at all reads as `{}`, so the first missing key is named.
 */
export const RawJsonBody = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => {
  return context.switchToHttp().getRequest<FastifyRequest>().body ?? {};
});
