import { http } from '@workline/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedOperations, unauthenticatedStatus } from './openapi';

const BODIES = { json: { body: {} }, csv: { body: 'a,b\n', contentType: 'text/csv' }, media: { body: 'x', contentType: 'image/png' } } as const;

describe('OpenAPI at /docs against the running gateway', () => {
  it('serves the committed document at /docs/openapi.json and an HTML list at /docs', async () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    const served = await http('GET', '/docs/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(committed);
    const page = await http('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    for (const path of Object.keys(committed.paths)) expect(page.text).toContain(path);
  });

  it('answers every documented operation with its documented status for a request without credentials (never "no route")', async () => {
    const answers = [];
    for (const op of documentedOperations()) {
      const path = op.path.replace(/\{\w+\}/g, 'probe');
      const answer = await http(op.method.toUpperCase(), path, op.body ? BODIES[op.body] : {});
      answers.push({ route: `${op.method} ${op.path}`, status: answer.status, routed: !answer.text.includes('no route') });
    }
    expect(answers).toEqual(documentedOperations().map((op) => ({ route: `${op.method} ${op.path}`, status: unauthenticatedStatus(op.security), routed: true })));
  });

  it('tells a route the router does not know apart (the probe above would see it)', async () => {
    const missing = await http<{ message: string }>('GET', '/v1/no-such-route');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Not found: no route GET /v1/no-such-route');
  });
});
