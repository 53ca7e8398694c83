import { DomainError, type ErrorBody, ErrorCode, errorMessage, isErrorBody } from '@workline/contracts';
import type { IHeaders } from 'kafkajs';

/** Kafka headers as plain strings (kafkajs gives Buffers, or arrays of them for repeated headers). */
export function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? String(value[0]) : String(value);
  }
  return out;
}

/** The error an RPC caller sees: domain errors keep their code; anything else is INTERNAL. */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof DomainError) return error.toBody();
  if (isErrorBody(error)) return error;
  return { code: ErrorCode.Internal, message: 'Internal error' };
}

/** Why a message failed, for logs and dead-letter headers (not for RPC callers: see toErrorBody). */
export function describeError(error: unknown): string {
  if (error instanceof DomainError || isErrorBody(error)) return `${error.code}: ${error.message}`;
  return errorMessage(error);
}

/** Validation failures can never succeed on retry: they go to the dead-letter topic at once. */
export const isPoison = (error: unknown) => toErrorBody(error).code === ErrorCode.Validation;
