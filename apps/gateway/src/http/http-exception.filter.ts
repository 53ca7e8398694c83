import { type ArgumentsHost, Catch, type ExceptionFilter, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { toHttpProblem } from './api-errors';
import { isMalformedContentTypeRefusal, malformedContentTypeRefusal } from './json-body';
import { pathOf, writeProblem } from './problem';

/**
 * The one place where errors become HTTP responses (Fastify's error handler and not-found handler end here
 * too). Unknown errors are 500 with an error id that is also logged, never a 4xx. Body shapes per API
 * group, unknown errors' too: writeProblem.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const problem = toHttpProblem(isMalformedContentTypeRefusal(error) ? malformedContentTypeRefusal(request) : error);
    // An answer already under way (a stream that failed) cannot be replaced: logged, and the connection ends.
    if (!problem || reply.sent) {
      const errorId = randomUUID();
      this.logger.error(
        `${request.method} ${pathOf(request)} failed (error id ${errorId})`,
        error instanceof Error ? error.stack : String(error),
      );
      if (!reply.sent) writeProblem(request, reply, { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal error', errorId });
      return;
    }
    if (problem.status === HttpStatus.NOT_FOUND && /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /.test(problem.message)) {
      problem.message = `Not found: no route ${request.method} ${pathOf(request)}`;
    }
    writeProblem(request, reply, problem);
  }
}
