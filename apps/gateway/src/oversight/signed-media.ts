import { DomainError, ErrorCode } from '@workline/contracts';
import { checkSignedPath } from '@workline/secrets';
import type { FastifyRequest } from 'fastify';

/** Refuses a presigned URL that is unsigned, altered or expired (403, with a message saying which). */
export function assertSignedRequest(
  key: string,
  method: 'GET' | 'PUT',
  path: string,
  request: FastifyRequest,
  what: 'upload' | 'media',
): void {
  const query = request.query as { expires?: unknown; signature?: unknown };
  const check = checkSignedPath(key, method, path, query);
  if (check.ok) return;
  switch (check.reason) {
    case 'missing':
      throw new DomainError(ErrorCode.Forbidden, `This ${what} URL is not signed: the expires and signature query parameters are required`);
    case 'tampered':
      throw new DomainError(
        ErrorCode.Forbidden,
        `This ${what} URL's signature does not match: the URL was altered or was not issued by Workline`,
      );
    case 'expired': {
      const expired = `This ${what} URL expired at ${new Date(Number(query.expires) * 1000).toISOString()}`;
      throw new DomainError(ErrorCode.Forbidden, what === 'upload' ? `${expired}: ask POST /v1/signed-url for a new one` : expired);
    }
  }
}
