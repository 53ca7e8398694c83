import { type Authenticator, type Credential, principalSubject, type Verdict } from '@workline/identity';
import type { NextFunction, Request, Response } from 'express';
import { apiGroupOf, type ApiGroup } from '../http/problem';
import { addressSubject, type RateLimiter } from '../http/rate-limit';
import type { AuthenticatedRequest } from './principal';

/** What the authentication middleware found; the route's guard decides what it means for that route. */
export interface Authentication {
  /** The credential presented, if any (malformed ones are not). */
  credential?: Credential;
  verdict?: Verdict;
  /** Authentication could not be done (e.g. PostgreSQL down): the guard throws it, so the API group's error body is used. */
  error?: unknown;
}

export type RequestWithAuthentication = AuthenticatedRequest & { authentication?: Authentication };

/** The token of `Authorization: Bearer <token>`, if that is what the request carries. */
const bearerToken = (request: Request) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

function basicCredentialOf(request: Request): Credential | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { kind: 'account', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * The credential each API group takes (spec "Authentication"): x-api-key on /v1 (HTTP Basic on the routes
 * that also take it, the Delivery API), Basic on /v4 and /v3, a worker's bearer token on the work API and
 * the admin token on /admin.
 */
export function presentedCredential(group: ApiGroup, request: Request): Credential | undefined {
  switch (group) {
    case 'v1': {
      const key = request.headers['x-api-key'];
      if (typeof key === 'string' && key) return { kind: 'api-key', key };
      return key === undefined ? basicCredentialOf(request) : undefined;
    }
    case 'v4':
    case 'v3':
      return basicCredentialOf(request);
    case 'work': {
      const token = bearerToken(request);
      return token ? { kind: 'worker', token } : undefined;
    }
    case 'admin': {
      const token = bearerToken(request);
      return token ? { kind: 'admin', token } : undefined;
    }
    default:
      return undefined;
  }
}

export const clientAddress = (request: Request) => request.ip ?? request.socket.remoteAddress ?? 'unknown';

/**
 * Authenticates every request of an API group before its body is read, then counts it against the rate
 * limit of the principal it proved (or of its address, without a valid credential), answering 429 over
 * the limit. A failed authentication is not answered here: the route's guard answers it after body
 * parsing, with its own message (so a malformed or oversize body still gets its 400/413).
 */
export function authentication(authenticator: Authenticator, rateLimiter: RateLimiter) {
  return (request: RequestWithAuthentication, response: Response, next: NextFunction) => {
    const group = apiGroupOf(request.path);
    if (group === 'other') return next();
    const credential = presentedCredential(group, request);
    const address = clientAddress(request);
    const verify = async () => {
      // On a cache hit the rate-limit take travels in authentication's one Redis round trip.
      const checked = credential
        ? await authenticator.authenticate(address, credential, (subject) => rateLimiter.command(group, subject)).catch((error: unknown) => {
            request.authentication = { credential, error };
            return undefined;
          })
        : undefined;
      const verdict = checked?.verdict;
      request.authentication ??= { credential, verdict };
      if (verdict?.outcome === 'verified') request.principal = verdict.principal;
      if (checked?.alongside) return checked.alongside;
      return rateLimiter.take(group, verdict?.outcome === 'verified' ? principalSubject(verdict.principal) : addressSubject(address));
    };
    verify().then((state) => {
      if (rateLimiter.admit(request, response, state)) next();
    }, next);
  };
}
