import { ErrorCode } from '@workline/contracts';

/** Jest matchers of the DomainErrors the services throw, for their unit tests. */
export const domainError = (code: ErrorCode, message: string) => expect.objectContaining({ code, message });

/** A 422 naming the field at fault, as the services word it. */
export const invalidRequest = (field: string, message: string) =>
  expect.objectContaining({ code: ErrorCode.Validation, message: `Invalid request: ${message}`, errors: [{ field, message }] });
