import { DomainError, ErrorCode } from '@workline/contracts';
import { checkSignedPath } from '@workline/secrets';
import type { Request } from 'express';

/** Refuses a presigned URL that is unsigned, altered or expired (403, with a message saying which). */
export function assertSignedRequest(key: string, method: 'GET' | 'PUT', path: string, request: Request, what: string): void {
  const check = checkSignedPath(key, method, path, request.query as { expires?: unknown; signature?: unknown });
  if (check.ok) return;
  const messages = {
    missing: `This ${what} URL is not signed: the expires and signature query parameters are required`,
    tampered: `This ${what} URL's signature does not match: the URL was altered or was not issued by Workline`,
    expired: `This ${what} URL expired at ${new Date(Number(request.query.expires) * 1000).toISOString()}`,
  };
  throw new DomainError(ErrorCode.Forbidden, check.reason === 'expired' && what === 'upload' ? `${messages.expired}: ask POST /v1/signed-url for a new one` : messages[check.reason]);
}
