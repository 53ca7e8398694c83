import { HttpStatus } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { HttpProblem } from './api-errors';

/**
 * Writes an error in the body shape of the API group that was called. The admin, work and /v1 APIs use
 * `{message, errors?}`; further groups (v4 `{message}`, v3 `{status, error}`) plug in here.
 */
export function writeProblem(_request: Request, response: Response, problem: HttpProblem): void {
  response.status(problem.status).json({ message: problem.message, ...(problem.errors ? { errors: problem.errors } : {}) });
}

export const unsupportedMediaType = (contentType: string | undefined): HttpProblem => ({
  status: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  message: `Content-Type must be application/json (got ${contentType ?? 'none'})`,
});
