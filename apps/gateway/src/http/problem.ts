import { HttpStatus } from '@nestjs/common';
import { V3, V3_DESCRIPTIONS } from '@workline/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpProblem } from './api-errors';

/** The API groups, each with its own error body (spec "Errors"). */
export type ApiGroup = 'v4' | 'v3' | 'v1' | 'work' | 'admin' | 'other';

/** The request's path without its query string (presigned URLs carry their signature there). */
export function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query < 0 ? request.url : request.url.slice(0, query);
}

export function apiGroupOf(path: string): ApiGroup {
  if (/^\/v4(\/|$)/.test(path)) return 'v4';
  if (/^\/v3(\/|$)/.test(path)) return 'v3';
  if (/^\/v1(\/|$)/.test(path)) return 'v1';
  if (/^\/workforce(\/|$)/.test(path)) return 'work';
  if (/^\/admin(\/|$)/.test(path)) return 'admin';
  return 'other';
}

/** Platform API v4: `{message}` with the spec's fixed texts for 400, 401, 403 and 404. */
function v4Body(problem: HttpProblem): object {
  const fixed: Partial<Record<number, string>> = {
    [HttpStatus.BAD_REQUEST]: 'Problem parsing the body',
    [HttpStatus.UNAUTHORIZED]: 'Bad credentials',
    [HttpStatus.FORBIDDEN]: 'Forbidden',
    [HttpStatus.NOT_FOUND]: 'Not found',
  };
  return { message: fixed[problem.status] ?? problem.message, ...errorIdOf(problem) };
}

const errorIdOf = (problem: HttpProblem) => (problem.errorId ? { error_id: problem.errorId } : {});

/**
 * A v3 error body. `error` is the code's description exactly as the table gives it (clients written against
 * the table compare it whole); what in particular is wrong goes in `detail`, from a text that is either the
 * description, the description then `: ` and the particulars, or the particulars alone.
 */
export function v3ErrorBody(code: number, text: string): { status: number; error: string; detail?: string } {
  const description = V3_DESCRIPTIONS[code];
  if (description === undefined || text === description) return { status: code, error: text };
  const detail = text.startsWith(`${description}: `) ? text.slice(description.length + 2) : text;
  return { status: code, error: description, detail };
}

/**
 * Platform API v3 (deprecated): `{status: <code>, error, detail?}` with the spec's code table, at the HTTP
 * status the table gives the code: an oversize or non-JSON body is 103 at 400, any server-side failure (an RPC
 * timeout's 503 too) 104 at 500 (docs/platform-api.md, "v3"). Answers the table has no code for keep their
 * status as the code: 404 for an unknown path, 429 over a rate limit.
 */
export function v3Answer(problem: HttpProblem): { httpStatus: number; body: object } {
  if (problem.v3) return { httpStatus: problem.status, body: v3ErrorBody(problem.v3.code, problem.v3.error) };
  switch (problem.status) {
    case HttpStatus.UNAUTHORIZED:
      return { httpStatus: 401, body: v3ErrorBody(V3.Unauthorized, V3_DESCRIPTIONS[V3.Unauthorized]) };
    case HttpStatus.BAD_REQUEST:
    case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
    case HttpStatus.PAYLOAD_TOO_LARGE:
      return { httpStatus: 400, body: v3ErrorBody(V3.BodyInvalid, problem.message) };
    case HttpStatus.UNPROCESSABLE_ENTITY:
      return { httpStatus: 400, body: v3ErrorBody(V3.DataInvalid, problem.message) };
    case HttpStatus.NOT_FOUND:
      return { httpStatus: 404, body: { status: 404, error: 'Not found' } };
    default:
      return problem.status >= 500
        ? { httpStatus: 500, body: { ...v3ErrorBody(V3.Internal, V3_DESCRIPTIONS[V3.Internal]), ...errorIdOf(problem) } }
        : { httpStatus: problem.status, body: { status: problem.status, error: problem.message } };
  }
}

/**
 * The challenge a 401 carries (RFC 9110 section 11.6.1): HTTP Basic on the platform API, bearer tokens on the
 * work and admin APIs. /v1's x-api-key is no HTTP authentication scheme, so its 401s carry none.
 */
export const CHALLENGES: Partial<Record<ApiGroup, string>> = {
  v4: 'Basic realm="Workline platform API", charset="UTF-8"',
  v3: 'Basic realm="Workline platform API", charset="UTF-8"',
  work: 'Bearer realm="Workline work API"',
  admin: 'Bearer realm="Workline admin API"',
};

/** Writes an error in the body shape of the API group that was called. */
export function writeProblem(request: FastifyRequest, reply: FastifyReply, problem: HttpProblem): FastifyReply {
  if (problem.headers) reply.headers(problem.headers);
  const group = apiGroupOf(pathOf(request));
  const challenge = CHALLENGES[group];
  if (problem.status === HttpStatus.UNAUTHORIZED && challenge) reply.header('WWW-Authenticate', challenge);
  switch (group) {
    case 'v4':
      return reply.code(problem.status).send(v4Body(problem));
    case 'v3': {
      const { httpStatus, body } = v3Answer(problem);
      return reply.code(httpStatus).send(body);
    }
    default:
      return reply
        .code(problem.status)
        .send({ message: problem.message, ...(problem.errors ? { errors: problem.errors } : {}), ...errorIdOf(problem) });
  }
}
