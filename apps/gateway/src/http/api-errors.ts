import { HttpException, HttpStatus } from '@nestjs/common';
import { DomainError, ErrorCode, type FieldError } from '@workline/contracts';

/** What an error becomes at the HTTP edge, before the API group's body shape is applied. */
export interface HttpProblem {
  status: number;
  message: string;
  errors?: FieldError[];
  /** Response headers that go with the error (Retry-After, ...). */
  headers?: Record<string, string>;
  /** The v3 code and text, when the error knows them (spec's v3 code table). */
  v3?: { code: number; error: string };
  /** An unexpected error's id, also in the log line that holds its stack (answered as `error_id`). */
  errorId?: string;
}

const STATUS_OF: Record<ErrorCode, number> = {
  [ErrorCode.Unauthorized]: HttpStatus.UNAUTHORIZED,
  [ErrorCode.TooManyRequests]: HttpStatus.TOO_MANY_REQUESTS,
  [ErrorCode.PayloadTooLarge]: HttpStatus.PAYLOAD_TOO_LARGE,
  [ErrorCode.UnsupportedMediaType]: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  [ErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [ErrorCode.Validation]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ErrorCode.Conflict]: HttpStatus.CONFLICT,
  [ErrorCode.Forbidden]: HttpStatus.FORBIDDEN,
  [ErrorCode.NotAllowed]: HttpStatus.METHOD_NOT_ALLOWED,
  [ErrorCode.Unavailable]: HttpStatus.SERVICE_UNAVAILABLE,
  [ErrorCode.Internal]: HttpStatus.INTERNAL_SERVER_ERROR,
};

/** HTTP status of each v3 code (spec, "Errors", platform API version 3). */
export function v3HttpStatus(code: number): number {
  if (code === 401) return HttpStatus.UNAUTHORIZED;
  if (code === 111) return HttpStatus.NOT_FOUND;
  if (code === 104 || code === 500) return HttpStatus.INTERNAL_SERVER_ERROR;
  return HttpStatus.BAD_REQUEST;
}

/** Maps any thrown value to a status and message; undefined means "unexpected" (a 500 with an error id). */
export function toHttpProblem(error: unknown): HttpProblem | undefined {
  if (error instanceof DomainError) {
    return {
      status: error.v3Code !== undefined ? v3HttpStatus(error.v3Code) : STATUS_OF[error.code],
      message: error.message,
      errors: error.errors,
      ...(error.v3Code !== undefined ? { v3: { code: error.v3Code, error: error.message } } : {}),
      ...(error.retryAfterSeconds !== undefined ? { headers: { 'Retry-After': String(error.retryAfterSeconds) } } : {}),
    };
  }
  // Errors Fastify raises itself (e.g. a malformed Content-Type) reach the filter as HttpExceptions too.
  if (error instanceof HttpException) {
    const response = error.getResponse();
    const message = typeof response === 'string' ? response : String((response as { message?: unknown }).message ?? error.message);
    return { status: error.getStatus(), message };
  }
  return undefined;
}
