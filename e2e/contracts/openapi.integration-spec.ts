import { http } from '@workline/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Operation {
  security?: object[];
  requestBody?: { content: Record<string, unknown> };
}

const COMMITTED = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

const operations = Object.entries(COMMITTED.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method, op })),
);

/** A body of the first media type the operation takes. */
function bodyOf(op: Operation): { body?: unknown; contentType?: string } {
  const type = Object.keys(op.requestBody?.content ?? {})[0];
  if (!type) return {};
  return type === 'application/json' ? { body: {} } : { body: 'a,b\n', contentType: type };
}

/** What an operation answers without credentials: 401 behind a scheme, 403 for a presigned URL without its signature, else 200. */
function unauthenticatedStatus(path: string, op: Operation): number {
  if (op.security?.length) return 401;
  return /^\/(uploads|media)\//.test(path) ? 403 : 200;
}

describe('OpenAPI at /docs against the running gateway', () => {
  it('serves the committed document at /docs/openapi.json (built from the running code) and Swagger UI at /docs, offline', async () => {
    const served = await http('GET', '/docs/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(COMMITTED);
    const page = await http('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // Every script and style the page loads comes from the gateway itself, and is there.
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url).filter((url) => !url.endsWith('.json'));
    expect(assets).toEqual([
      '/docs/swagger-ui/swagger-ui.css',
      '/docs/swagger-ui/swagger-ui-bundle.js',
      '/docs/swagger-ui/workline-init.js',
    ]);
    for (const asset of assets) {
      const answer = await http('GET', asset);
      expect({ asset, status: answer.status, type: answer.headers.get('content-type') }).toEqual({
        asset,
        status: 200,
        type: expect.stringMatching(/^text\/(css|javascript)/),
      });
    }
    expect((await http('GET', '/docs/swagger-ui/workline-init.js')).text).toContain("url: '/docs/openapi.json'");
    expect((await http('GET', '/docs/swagger-ui/..%2Fpackage.json')).status).toBe(404);
  });

  it('answers every documented operation with its documented status for a request without credentials (never "no route")', async () => {
    const answers = [];
    for (const { path, method, op } of operations) {
      const probe = path.replace('{file}', 'swagger-ui.css').replace(/\{\w+\}/g, 'probe');
      const answer = await http(method.toUpperCase(), probe, bodyOf(op));
      answers.push({ route: `${method} ${path}`, status: answer.status, routed: !answer.text.includes('no route') });
    }
    expect(answers).toEqual(
      operations.map(({ path, method, op }) => ({ route: `${method} ${path}`, status: unauthenticatedStatus(path, op), routed: true })),
    );
  });

  it('tells a route the router does not know apart (the probe above would see it)', async () => {
    const missing = await http<{ message: string }>('GET', '/v1/no-such-route');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Not found: no route GET /v1/no-such-route');
    // Whatever the body: an unknown path (a POST to a PUT-only upload URL too) is 404, not a 415 for a body no route takes.
    for (const [path, contentType] of [
      ['/v1/no-such-route', 'text/plain'],
      ['/uploads/media/med_x?expires=1&signature=ab', 'image/png'],
      ['/v4/no-such-route', 'application/json'],
    ]) {
      const posted = await http<{ message: string }>('POST', path, { contentType, body: contentType === 'application/json' ? '{' : 'abc' });
      expect({ path, status: posted.status, message: posted.body.message }).toEqual({
        path,
        status: 404,
        message: path.startsWith('/v4') ? 'Not found' : `Not found: no route POST ${path.split('?')[0]}`,
      });
    }
  });
});
