import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { jsonBodyText } from '../http/json-body';

/**
 * The JSON body's text as it came (the JSON parser has checked it), past the global StrictValidationPipe
 * (which does not validate custom decorators): the platform API's 422/v3 texts are the spec's, so
 * platform-runs validates the body, and it gets the text to parse rather than a copy serialised again here.
 * No body at all reads as `{}`, so the first missing key is named.
 */
export const RawJsonBody = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  return jsonBodyText(context.switchToHttp().getRequest<FastifyRequest>()) ?? '{}';
});
