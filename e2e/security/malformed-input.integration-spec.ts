import {
  adminHeaders,
  createOversightTenant,
  createPlatformAccount,
  createWorker,
  http,
  type HttpResult,
  OPENAPI_FILE,
  testStack,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

interface Schema {
  $ref?: string;
  properties?: Record<string, Schema>;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
}
interface Operation {
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema; examples?: Record<string, { value: unknown }> }> };
}

const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? resolve(document.components.schemas[schema.$ref.split('/').pop() as string]) : schema;

/** Every operation of the published contract: method, path template and what it takes. */
const OPERATIONS = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
);

/** Values of every JSON type and edge a client can send by mistake (or on purpose) in place of a field. */
const WRONG_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  3_000_000_000,
  2 ** 53 + 2,
  '',
  ' ',
  'x'.repeat(20_000),
  [],
  ['a'],
  {},
  { $gt: '' },
  true,
  '\u0000',
  '😀\ud800',
  '2024-02-30T25:61:00Z',
  '0000-01-01T00:00:00Z',
  'http://169.254.169.254/latest',
];

/** Whole bodies that are not the object an operation takes. */
const WRONG_BODIES = [
  '{',
  '{"a":}',
  '[]',
  'null',
  '1',
  '"text"',
  '{"__proto__":{"polluted":true}}',
  `{"deep":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
];

/** Path parameters no resource has, of every awkward shape. */
const WRONG_IDS = [
  'does-not-exist',
  'x'.repeat(3_000),
  '%00',
  '%C0%80',
  '%ED%A0%80',
  '..%2F..%2Fetc',
  '%F0%9F%98%80',
  "'; select 1 --",
  '-1',
  '0',
];

/** Query values of every awkward shape, for every query parameter. */
const WRONG_QUERY_VALUES = ['', 'x'.repeat(3_000), '-1', '1e400', 'NaN', '[]', '%00', '%ED%A0%80', '2024-13-45', '0000-01-01', 'true'];

type PathStep = string | 0;

/** The paths below the top level of `value` to every field of its objects (a list's first item stands for the others). */
function nestedPaths(value: unknown, at: PathStep[] = []): PathStep[][] {
  if (Array.isArray(value)) return value.length ? nestedPaths(value[0], [...at, 0]) : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [...(at.length ? [[...at, key]] : []), ...nestedPaths(inner, [...at, key])]);
}

const describePath = (at: PathStep[]) => at.map((step, n) => (step === 0 ? '[0]' : n ? `.${step}` : step)).join('');

/** A copy of `value` with `replacement` at `at`. */
function replaceAt(value: unknown, at: PathStep[], replacement: unknown): unknown {
  if (!at.length) return replacement;
  const [step, ...rest] = at;
  if (step === 0 && Array.isArray(value)) return [replaceAt(value[0], rest, replacement), ...value.slice(1)];
  const object = value as Record<string, unknown>;
  return { ...object, [step]: replaceAt(object[step], rest, replacement) };
}

/**
 * House rule: bad input gets a 4xx with a message, never a 5xx. Every operation of docs/openapi.json, with
 * a valid credential of its scheme, is sent wrong bodies (whole and field by field, starting from the
 * documented example), wrong path ids and wrong query values; no answer may be a 5xx, and every 4xx says
 * what is wrong. (Correct answers are checked by the contract suite, e2e/contracts.)
 */
describe('malformed input to every operation of the contract', () => {
  let credentials: Record<string, Record<string, string>>;
  let realIds: Record<string, string>;
  let realFields: Record<string, string>;

  beforeAll(async () => {
    const tenant = await createOversightTenant(`Malformed ${randomUUID().slice(0, 6)}`, {
      useCases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
    });
    const platform = await createPlatformAccount('Malformed line');
    credentials = {
      adminToken: adminHeaders(),
      apiKey: { 'x-api-key': tenant.key },
      basic: platform.auth,
      workerToken: await createWorker(),
    };
    // A real id where the path names one, so that a body or query is read by the handler behind the lookup.
    realIds = { workstreamId: tenant.workstreamId, accountId: tenant.accountId };
    realFields = {
      workstream_id: tenant.workstreamId,
      account_id: tenant.accountId,
      configuration_id: tenant.configurationId,
      line_id: platform.lineId,
      template_id: platform.lineId,
    };
  });

  const headersOf = (operation: Operation): Record<string, string> => {
    const scheme = Object.keys(operation.security?.[0] ?? {})[0];
    return scheme ? credentials[scheme] : {};
  };

  const fill = (path: string, pick: (name: string) => string) =>
    path.replace(/\{(\w+)\}/g, (_, name: string) => (name in realIds ? realIds[name] : pick(name)));

  const failures: string[] = [];
  beforeEach(() => (failures.length = 0));
  const expectHandled = (what: string, answer: HttpResult) => {
    if (answer.status >= 500) failures.push(`${what} → ${answer.status} ${answer.text.slice(0, 200)}`);
    else if (answer.status >= 400 && !answer.text.trim()) failures.push(`${what} → ${answer.status} with an empty body`);
  };

  /** Runs the requests a few at a time (the stack answers them in any order). */
  async function sendAll(requests: { what: string; send: () => Promise<HttpResult> }[]): Promise<number> {
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const { what, send } = requests[next++];
        expectHandled(what, await send());
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    return requests.length;
  }

  it('wrong JSON bodies, whole and field by field, answer 4xx with a message', async () => {
    const requests = OPERATIONS.filter(({ operation }) => operation.requestBody?.content['application/json']).flatMap(
      ({ method, path, operation }) => {
        const media = operation.requestBody!.content['application/json'];
        const documented = (Object.values(media.examples ?? {})[0]?.value ?? {}) as Record<string, unknown>;
        // The example with real ids where it names one, so that the wrong value is read past the lookups.
        const example = Object.fromEntries(Object.entries(documented).map(([field, value]) => [field, realFields[field] ?? value]));
        const fields = Object.keys(resolve(media.schema)?.properties ?? example);
        const url = fill(path, () => 'does-not-exist');
        const send = (body: string) => () => http(method, url, { headers: headersOf(operation), body });
        return [
          ...WRONG_BODIES.map((body) => ({ what: `${method} ${path} body ${body.slice(0, 40)}`, send: send(body) })),
          ...fields.flatMap((field) =>
            WRONG_VALUES.map((value) => ({
              what: `${method} ${path} ${field}=${JSON.stringify(value)?.slice(0, 40)}`,
              send: send(JSON.stringify({ ...example, [field]: value })),
            })),
          ),
          // Every level down: each field of an object the example holds, at any depth (in a list, its first item's).
          ...nestedPaths(example).flatMap((at) =>
            WRONG_VALUES.map((wrong) => ({
              what: `${method} ${path} ${describePath(at)}=${JSON.stringify(wrong)?.slice(0, 40)}`,
              send: send(JSON.stringify(replaceAt(example, at, wrong))),
            })),
          ),
        ];
      },
    );
    expect(await sendAll(requests)).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  });

  it(
    'a number beyond a double, or a key that reaches a prototype, ' + 'is refused with 400 naming it (JSON.stringify cannot send them)',
    async () => {
      const record = {
        workstream_id: realIds.workstreamId,
        use_case_id: 'uc-1',
        task_definition_id: 'td-1',
        worker_id: 'w-1',
        review_completed_at: '2026-11-29T12:00:00Z',
        review_score: 0.5,
      };
      const reviewed = `/v1/workstreams/${realIds.workstreamId}/task_reviewed`;
      const post = (path: string, headers: Record<string, string>, text: string) => http('POST', path, { headers, body: text });
      const withRaw = (body: object, raw: string) => `${JSON.stringify(body).slice(0, -1)},${raw}}`;
      const answers = [
        await post(reviewed, credentials.apiKey, withRaw(record, '"review_duration":1e400')),
        await post(reviewed, credentials.apiKey, withRaw(record, '"__proto__":{"review_score":1}')),
        await post(
          '/v1/tasks',
          credentials.apiKey,
          withRaw({ configuration_id: realFields.configuration_id, media_key: 'm' }, '"__proto__":{"x":1}'),
        ),
        await post('/v4/runs', credentials.basic, `{"line_id":"${realFields.line_id}","units":[{"n":-2E+999}]}`),
      ];
      expect(answers.map(({ status, body }) => ({ status, body }))).toEqual([
        {
          status: 400,
          body: { message: 'Body field review_duration is a number beyond the range of a double (about ±1.8e308), which cannot be stored' },
        },
        {
          status: 400,
          body: { message: 'Body key __proto__ is not allowed: it would reach the prototype of the object it is copied into' },
        },
        {
          status: 400,
          body: { message: 'Body key __proto__ is not allowed: it would reach the prototype of the object it is copied into' },
        },
        // v4 answers its table's fixed text for a 400.
        { status: 400, body: { message: 'Problem parsing the body' } },
      ]);
    },
  );

  it("request headers over 16 KiB are 431 (Node's limit), before any route or credential is looked at", async () => {
    const padded = await fetch(`${testStack().gatewayUrl}/v1/api-key`, { headers: { 'x-padding': 'x'.repeat(17 * 1024) } });
    expect(padded.status).toBe(431);
    const within = await fetch(`${testStack().gatewayUrl}/v1/api-key`, { headers: { 'x-padding': 'x'.repeat(15 * 1024) } });
    expect(within.status).toBe(401);
  });

  it('wrong path ids and query values answer 4xx (or a 2xx that ignores them) with a message', async () => {
    const requests = OPERATIONS.flatMap(({ method, path, operation }) => {
      const headers = headersOf(operation);
      const body = operation.requestBody?.content['application/json'] ? '{}' : undefined;
      const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const byId = pathParameters.length
        ? WRONG_IDS.map((id) => ({
            what: `${method} ${path} with ${id.slice(0, 40)}`,
            send: () => http(method, path.replace(/\{(\w+)\}/g, id), { headers, body }),
          }))
        : [];
      const byQuery = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .flatMap((parameter) =>
          WRONG_QUERY_VALUES.map((value) => ({
            what: `${method} ${path}?${parameter.name}=${value.slice(0, 40)}`,
            send: () => http(method, `${fill(path, () => 'does-not-exist')}?${parameter.name}=${value}`, { headers, body }),
          })),
        );
      return [...byId, ...byQuery];
    });
    expect(await sendAll(requests)).toBeGreaterThan(200);
    expect(failures).toEqual([]);
  });
});
