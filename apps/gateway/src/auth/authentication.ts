import { type Authenticator, type Credential, type Principal, principalSubject, type Verdict } from '@workline/identity';
import { type Pipelined, together } from '@workline/redis';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiGroupOf, type ApiGroup, pathOf } from '../http/problem';
import { addressSubject, type RateLimiter } from '../http/rate-limit';

/** What the authentication hook found; the route's guard decides what it means for that route. */
export interface Authentication {
  /** The credential presented, if any (malformed ones are not). */
  credential?: Credential;
  verdict?: Verdict;
  /** Authentication could not be done (e.g. PostgreSQL down): the guard throws it, so the API group's error body is used. */
  error?: unknown;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook for the API groups (by the guard elsewhere). */
    authentication?: Authentication;
  }
}

/**
 * A route's own Redis command that travels in authentication's round trip (so the route needs no round trip
 * of its own), sent when the principal is cached, as the rate-limit take is: the task quota on POST /v1/tasks.
 * Its reply is the route's whatever authentication then decides, so the command keeps it on the request
 * itself when it reads it (a reply Redis refused is not read).
 */
export interface RoundTripRider {
  wants(request: FastifyRequest): boolean;
  /** The command for this request and principal, or undefined when the route counts nothing for it. */
  command(request: FastifyRequest, principal: Principal): Pipelined<unknown> | undefined;
}

/** The token of `Authorization: Bearer <token>`, if that is what the request carries. */
const bearerToken = (request: Pick<FastifyRequest, 'headers'>) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

function basicCredentialOf(request: Pick<FastifyRequest, 'headers'>): Credential | undefined {
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
export function presentedCredential(group: ApiGroup, request: Pick<FastifyRequest, 'headers'>): Credential | undefined {
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

/** The client's address: the socket's, or with TRUST_PROXY that many proxies back in X-Forwarded-For. */
export const clientAddress = (request: FastifyRequest) => request.ip ?? 'unknown';

/**
 * Authenticates every request of an API group as it arrives (an onRequest hook: before its body is read),
 * then counts it against the rate limit of the principal it proved (or of its address, without a valid
 * credential), answering 429 over the limit. A failed authentication is not answered here: the route's guard answers it after body
 * parsing, with its own message (so a malformed or oversize body still gets its 400/413).
 */
export function installAuthentication(
  fastify: FastifyInstance,
  authenticator: Authenticator,
  rateLimiter: RateLimiter,
  riders: RoundTripRider[] = [],
): void {
  fastify.decorateRequest('principal', undefined);
  fastify.decorateRequest('authentication', undefined);
  fastify.addHook('onRequest', async (request, reply) => {
    const group = apiGroupOf(pathOf(request));
    if (group === 'other') return;
    const credential = presentedCredential(group, request);
    const address = clientAddress(request);
    const rider = riders.find((candidate) => candidate.wants(request));
    // On a cache hit the rate-limit take (and a rider's command) travel in authentication's one Redis round trip.
    const checked = credential
      ? await authenticator
          .authenticate(address, credential, (principal: Principal) =>
            together(rateLimiter.command(group, principalSubject(principal)), rider?.command(request, principal)),
          )
          .catch((error: unknown) => {
            request.authentication = { credential, error };
            return undefined;
          })
      : undefined;
    const verdict = checked?.verdict;
    request.authentication ??= { credential, verdict };
    if (verdict?.outcome === 'verified') request.principal = verdict.principal;
    const state = checked?.alongside
      ? checked.alongside[0]
      : await rateLimiter.take(group, verdict?.outcome === 'verified' ? principalSubject(verdict.principal) : addressSubject(address));
    if (!rateLimiter.admit(request, reply, state)) return reply;
  });
}
