import { type ArgumentsHost, Catch, type ExceptionFilter, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { toHttpProblem } from './api-errors';
import { writeProblem } from './problem';

/**
 * The one place where errors become HTTP responses. Unknown errors are 500 with an error id that is also
 * logged, never a 4xx. Body shapes per API group: writeProblem.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const request = host.switchToHttp().getRequest<Request>();
    const problem = toHttpProblem(error);
    if (!problem) {
      const errorId = randomUUID();
      this.logger.error(`${request.method} ${request.path} failed (error id ${errorId})`, error instanceof Error ? error.stack : String(error));
      response.status(HttpStatus.INTERNAL_SERVER_ERROR).json({ message: 'Internal error', error_id: errorId });
      return;
    }
    if (problem.status === HttpStatus.NOT_FOUND && /^Cannot (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /.test(problem.message)) {
      problem.message = `Not found: no route ${request.method} ${request.path}`;
    }
    writeProblem(request, response, problem);
  }
}
