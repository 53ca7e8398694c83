/**
 * Domain error codes. Services throw `DomainError`; the gateway maps each code to the status and body
 * shape of the API group that was called (v4 `{message}`, v3 `{status, error}`, v1 `{message, errors}`).
 */
export enum ErrorCode {
  Unauthorized = 'UNAUTHORIZED',
  NotFound = 'NOT_FOUND',
  Validation = 'VALIDATION',
  Conflict = 'CONFLICT',
  Forbidden = 'FORBIDDEN',
  NotAllowed = 'NOT_ALLOWED',
  Unavailable = 'UNAVAILABLE',
  Internal = 'INTERNAL',
  TooManyRequests = 'TOO_MANY_REQUESTS',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
}

export interface FieldError {
  field: string;
  message: string;
}

/** The serialisable form of a DomainError, as it travels in an RPC reply. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  errors?: FieldError[];
  /** The code of the platform API v3 error table, for errors raised while serving a v3 request. */
  v3_code?: number;
  /** With TOO_MANY_REQUESTS (and UNAVAILABLE): when to try again; becomes the Retry-After header. */
  retry_after_seconds?: number;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly v3Code?: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toBody(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.v3Code !== undefined ? { v3_code: this.v3Code } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retry_after_seconds: this.retryAfterSeconds } : {}),
    };
  }

  static fromBody(body: ErrorBody): DomainError {
    return new DomainError(body.code, body.message, body.errors, body.v3_code, body.retry_after_seconds);
  }

  static tooManyRequests(message: string, retryAfterSeconds: number): DomainError {
    return new DomainError(ErrorCode.TooManyRequests, message, undefined, undefined, Math.max(1, Math.ceil(retryAfterSeconds)));
  }

  static notFound(message: string): DomainError {
    return new DomainError(ErrorCode.NotFound, message);
  }
}

export function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ErrorBody).code === 'string' &&
    Object.values(ErrorCode).includes((value as ErrorBody).code) &&
    typeof (value as ErrorBody).message === 'string'
  );
}

/** What went wrong, in words, for a log line or a failure record: anything can be thrown, not only Errors. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
