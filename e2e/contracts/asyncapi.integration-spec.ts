import 'reflect-metadata';
import { Topic } from '@workline/contracts';
import { adminCreate, eventually, http, callsOnly, readWholeTopic } from '@workline/testing';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// It calls the gateway and the performance service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'performance']);

interface AsyncApi {
  components: { schemas: object; messages: Record<string, { headers: object; payload: object }> };
}

interface WorkstreamCreatedValue {
  data?: { workstream_id?: string };
}

const COMMITTED = join(__dirname, '..', '..', 'docs', 'asyncapi.json');

describe('AsyncAPI document at /docs/asyncapi.json against the running stack', () => {
  it('serves the committed document, linked from /docs', async () => {
    const served = await http('GET', '/docs/asyncapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(served.body).toEqual(JSON.parse(readFileSync(COMMITTED, 'utf8')));
    const page = await http('GET', '/docs');
    expect(page.text).toContain('<a href="/docs/asyncapi.json">');
  });

  it('describes the key, headers and payload of a real WorkstreamCreated message', async () => {
    const document = (await http<AsyncApi>('GET', '/docs/asyncapi.json')).body;
    const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
    const validatorOf = (schema: object) => ajv.compile({ ...schema, components: document.components });
    const message = document.components.messages.WorkstreamCreated;

    const since = Date.now();
    const account = await adminCreate<{ id: string }>('/accounts', { name: 'AsyncAPI check' });
    const workstream = await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name: 'Topics',
      use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
    });
    const mine = await eventually(
      async () =>
        (await readWholeTopic<WorkstreamCreatedValue>(Topic.WorkstreamCreated, { since })).find(
          (m) => m.value?.data?.workstream_id === workstream.id,
        ),
      { what: 'the WorkstreamCreated message', timeoutMs: 30_000, intervalMs: 500 },
    );

    expect(mine.key).toBe(workstream.id);
    const headers = validatorOf(message.headers);
    expect(headers(mine.headers) ? [] : headers.errors).toEqual([]);
    const payload = validatorOf(message.payload);
    expect(payload(mine.value) ? [] : payload.errors).toEqual([]);
    // The schemas are not vacuous: the same message without its event-id header, or with another type, fails.
    const { 'event-id': _eventId, ...withoutEventId } = mine.headers;
    expect(headers(withoutEventId)).toBe(false);
    expect(payload({ ...mine.value, type: Topic.TaskError })).toBe(false);
  });
});
