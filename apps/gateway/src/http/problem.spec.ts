import { HttpStatus } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpExceptionFilter } from './http-exception.filter';
import { v3Answer, v3ErrorBody, writeProblem } from './problem';

/** What a reply was given: its status, headers and body (a recording stand-in: the mapping is pure logic). */
function recordingReply() {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const reply = {
    sent: false,
    code(status: number) {
      sent.status = status;
      return reply;
    },
    headers(headers: Record<string, string>) {
      Object.assign(sent.headers, headers);
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

const requestTo = (url: string, method = 'POST') => ({ url, method }) as FastifyRequest;

describe('v3 answers follow the spec code table', () => {
  it('answers each code at the HTTP status the table gives it', () => {
    const answer = (status: number, message = 'm') => v3Answer({ status, message });
    expect(answer(HttpStatus.UNAUTHORIZED)).toEqual({ httpStatus: 401, body: { status: 401, error: 'Unauthorized access' } });
    expect(answer(HttpStatus.BAD_REQUEST, 'not JSON')).toEqual({
      httpStatus: 400,
      body: { status: 103, error: 'Body is invalid', detail: 'not JSON' },
    });
    // An oversize or non-JSON body is "Body is invalid", and 103 is HTTP 400 in the table (not 413 or 415).
    expect(answer(HttpStatus.PAYLOAD_TOO_LARGE, 'too large')).toEqual({
      httpStatus: 400,
      body: { status: 103, error: 'Body is invalid', detail: 'too large' },
    });
    expect(answer(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 'not JSON type')).toEqual({
      httpStatus: 400,
      body: { status: 103, error: 'Body is invalid', detail: 'not JSON type' },
    });
    expect(answer(HttpStatus.UNPROCESSABLE_ENTITY, 'bad')).toEqual({
      httpStatus: 400,
      body: { status: 102, error: 'Data is invalid', detail: 'bad' },
    });
    // Any server-side failure is 104 at 500, an RPC timeout's 503 included.
    for (const status of [500, 502, 503, 504]) {
      expect(answer(status, 'platform-runs did not answer')).toEqual({ httpStatus: 500, body: { status: 104, error: 'Internal error' } });
    }
  });

  it('keeps the code a domain error chose, and the status for answers the table has no code for', () => {
    expect(v3Answer({ status: 400, message: 'x', v3: { code: 108, error: 'Template not found' } })).toEqual({
      httpStatus: 400,
      body: { status: 108, error: 'Template not found' },
    });
    expect(v3Answer({ status: 404, message: 'no route' })).toEqual({ httpStatus: 404, body: { status: 404, error: 'Not found' } });
    expect(v3Answer({ status: 429, message: 'Rate limit of 5 requests per minute exceeded; retry in 3 s' })).toEqual({
      httpStatus: 429,
      body: { status: 429, error: 'Rate limit of 5 requests per minute exceeded; retry in 3 s' },
    });
  });

  it("answers the table's description word for word in error, and the particulars in detail", () => {
    expect(v3ErrorBody(103, 'Body is invalid: missing key template_id')).toEqual({
      status: 103,
      error: 'Body is invalid',
      detail: 'missing key template_id',
    });
    expect(v3ErrorBody(102, 'resources[1] is not of the expected type (object)')).toEqual({
      status: 102,
      error: 'Data is invalid',
      detail: 'resources[1] is not of the expected type (object)',
    });
    // Nothing more to say: no detail.
    expect(v3ErrorBody(107, 'No resources were passed')).toEqual({ status: 107, error: 'No resources were passed' });
    expect(v3ErrorBody(108, 'Template not found')).toEqual({ status: 108, error: 'Template not found' });
    // A code the table lacks keeps its text as the error.
    expect(v3ErrorBody(410, 'v3 is withdrawn')).toEqual({ status: 410, error: 'v3 is withdrawn' });
  });

  it('writes the Retry-After of a 503 on the v3 answer too', () => {
    const { reply, sent } = recordingReply();
    writeProblem(requestTo('/v3/tasks'), reply, { status: 503, message: 'busy', headers: { 'Retry-After': '2' } });
    expect(sent).toEqual({ status: 500, headers: { 'Retry-After': '2' }, body: { status: 104, error: 'Internal error' } });
  });
});

describe('a 401', () => {
  it('challenges with the scheme of the API group called (RFC 9110), and /v1 (x-api-key) with none', () => {
    const challenge = (url: string) => {
      const { reply, sent } = recordingReply();
      writeProblem(requestTo(url), reply, { status: 401, message: 'Bad credentials' });
      return sent.headers['WWW-Authenticate'];
    };
    expect(challenge('/v4/runs')).toBe('Basic realm="Workline platform API", charset="UTF-8"');
    expect(challenge('/v3/tasks/x')).toBe('Basic realm="Workline platform API", charset="UTF-8"');
    expect(challenge('/workforce/v1/assignments/next')).toBe('Bearer realm="Workline work API"');
    expect(challenge('/admin/v1/accounts')).toBe('Bearer realm="Workline admin API"');
    expect(challenge('/v1/tasks')).toBeUndefined();
  });

  it('is the only answer that challenges', () => {
    const { reply, sent } = recordingReply();
    writeProblem(requestTo('/v4/runs/x'), reply, { status: 404, message: 'Not found' });
    expect(sent.headers).toEqual({});
  });
});

describe('an unexpected error', () => {
  const unexpected = (url: string) => {
    const { reply, sent } = recordingReply();
    const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => requestTo(url) }) };
    const filter = new HttpExceptionFilter();
    // The stack goes to the log under the error id; keep the test output clean.
    (filter as unknown as { logger: { error: () => void } }).logger = { error: () => undefined };
    filter.catch(new TypeError('x is undefined'), host as never);
    return sent;
  };

  it('is a 500 in the body shape of the API group called, with the id it is logged under', () => {
    const v3 = unexpected('/v3/tasks/abc');
    expect(v3).toEqual({ status: 500, headers: {}, body: { status: 104, error: 'Internal error', error_id: expect.any(String) } });
    const v4 = unexpected('/v4/runs/abc');
    expect(v4).toEqual({ status: 500, headers: {}, body: { message: 'Internal error', error_id: expect.any(String) } });
    const v1 = unexpected('/v1/tasks/abc');
    expect(v1).toEqual({ status: 500, headers: {}, body: { message: 'Internal error', error_id: expect.any(String) } });
    expect((v3.body as { error_id: string }).error_id).not.toBe((v4.body as { error_id: string }).error_id);
  });
});
