import { type DynamicModule, RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { loadEnv } from '@workline/config';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GatewayEnv } from '../gateway.env';
import { GatewayModule } from '../gateway.module';
import { OPERATION_EXAMPLES } from './examples';
import { generateOpenApiDocument, openApiText } from './generate';

type ModuleRef = Type | DynamicModule | Promise<DynamicModule>;

interface Media {
  schema: { format?: string };
  example?: unknown;
}
interface Response {
  description: string;
  content?: Record<string, Media>;
}
interface Doc {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        security: object[];
        responses: Record<string, Response>;
        requestBody?: { content: Record<string, Media> };
      }
    >
  >;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, object>; headers: Record<string, object> };
}

const ROOT = join(__dirname, '..', '..', '..', '..');

/** Every controller the gateway module tree declares, static and dynamic modules alike. */
function controllersOf(ref: ModuleRef, seen = new Set<unknown>()): Type[] {
  if (ref instanceof Promise || seen.has(ref)) return [];
  seen.add(ref);
  const dynamic = 'module' in ref ? ref : undefined;
  const cls = (dynamic ? dynamic.module : ref) as Type;
  const controllers: Type[] = [...(Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, cls) ?? []), ...(dynamic?.controllers ?? [])];
  const imports: ModuleRef[] = [...(Reflect.getMetadata(MODULE_METADATA.IMPORTS, cls) ?? []), ...(dynamic?.imports ?? [])];
  return [...controllers, ...imports.flatMap((child) => controllersOf(child, seen))];
}

const routePath = (...parts: string[]) =>
  `/${parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/')}`;

/** "METHOD /path/{param}" of every handler, from Nest's route metadata (what the router registers). */
function registeredRoutes(): string[] {
  const env = loadEnv(GatewayEnv, { ADMIN_TOKEN: 'openapi-spec-token-0123456789' });
  return controllersOf(GatewayModule.register(env)).flatMap((controller) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    return Object.getOwnPropertyNames(controller.prototype)
      .filter((name) => name !== 'constructor')
      .map((name) => controller.prototype[name] as unknown)
      .filter((handler): handler is object => typeof handler === 'function' && Reflect.hasMetadata(PATH_METADATA, handler))
      .map((handler) => {
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const path = routePath(base, String(Reflect.getMetadata(PATH_METADATA, handler))).replace(/:(\w+)/g, '{$1}');
        return `${method} ${path}`;
      });
  });
}

const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
  );

describe('OpenAPI document generated from the controllers', () => {
  let doc: Doc;
  let text: string;

  beforeAll(async () => {
    const document = await generateOpenApiDocument();
    text = openApiText(document);
    doc = JSON.parse(text) as Doc;
  });

  it('is committed as docs/openapi.json (npm run openapi writes it)', () => {
    expect(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8')).toBe(text);
  });

  it('documents exactly the routes the gateway registers', () => {
    const registered = registeredRoutes().sort();
    expect(registered.length).toBeGreaterThan(50);
    expect(
      operationsOf(doc)
        .map((o) => o.name)
        .sort(),
    ).toEqual(registered);
  });

  it('keeps every operation of the hand-written document, with each of its statuses', () => {
    const before = JSON.parse(readFileSync(join(__dirname, 'hand-written-operations.json'), 'utf8')) as Record<string, number[]>;
    const now = Object.fromEntries(
      operationsOf(doc).map(({ name, op }) => [
        name,
        Object.keys(op.responses)
          .filter((s) => s !== 'default')
          .map(Number),
      ]),
    );
    const lost = Object.entries(before).flatMap(([name, statuses]) =>
      now[name] ? statuses.filter((s) => !now[name].includes(s)).map((s) => `${name} ${s}`) : [`${name} (operation)`],
    );
    expect(Object.keys(before)).toHaveLength(53);
    expect(lost).toEqual([]);
  });

  it('gives every operation a unique id, a success answer, and a schema for every JSON body and answer', () => {
    expect(doc.openapi).toBe('3.1.0');
    const ids = operationsOf(doc).map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const missing: string[] = [];
    for (const { name, op } of operationsOf(doc)) {
      if (!Object.keys(op.responses).some((status) => /^2/.test(status))) missing.push(`${name}: no success status`);
      const contents = [
        ...Object.entries(op.responses).map(([status, r]) => [status, r.content] as const),
        ['body', op.requestBody?.content] as const,
      ];
      for (const [where, content] of contents) {
        for (const [type, media] of Object.entries(content ?? {})) if (!media.schema) missing.push(`${name} ${where} ${type}: no schema`);
      }
      // Every error has the body of its API group (or its own, e.g. a 503 health report).
      for (const [status, response] of Object.entries(op.responses)) {
        if (/^[45]/.test(status) && !response.content?.['application/json']) missing.push(`${name} ${status}: no error body`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('states the error shape of each API group', () => {
    const errorOf = (path: string, method: string, status: number) =>
      doc.paths[path][method].responses[status].content?.['application/json'].schema;
    expect(errorOf('/v4/runs', 'post', 422)).toEqual({ $ref: '#/components/schemas/V4ErrorAnswer' });
    expect(errorOf('/v3/tasks', 'post', 400)).toEqual({ $ref: '#/components/schemas/V3ErrorAnswer' });
    expect(errorOf('/v1/tasks', 'post', 422)).toEqual({ $ref: '#/components/schemas/ErrorAnswer' });
    expect(doc.paths['/v1/tasks'].post.responses.default.content?.['application/json'].schema).toEqual({
      $ref: '#/components/schemas/InternalErrorAnswer',
    });
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'apiKey', 'basic', 'workerToken']);
  });

  it('has schemas a JSON Schema 2020-12 validator compiles, and whose $refs all resolve', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('date-time', true).addFormat('binary', true).addFormat('email', true).addFormat('uri', true);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const name of Object.keys(doc.components.schemas)) expect(() => ajv.getSchema(`doc#/components/schemas/${name}`)).not.toThrow();
    const refs = [...text.matchAll(/"\$ref": "#\/components\/schemas\/(\w+)"/g)].map(([, name]) => name);
    expect(refs.filter((name) => !doc.components.schemas[name])).toEqual([]);
  });

  it('has an example for every body and every answer (bytes excepted), each valid against its schema', () => {
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const problems: string[] = [];
    let checked = 0;
    const check = (where: string, type: string, media: Media) => {
      if (media.schema.format === 'binary') return;
      if (media.example === undefined) return void problems.push(`${where} ${type}: no example`);
      checked++;
      if (type !== 'application/json') {
        if (typeof media.example !== 'string' || !media.example) problems.push(`${where} ${type}: the example is no text`);
        return;
      }
      const schema = JSON.parse(JSON.stringify(media.schema).replace(/"#\/components\//g, '"doc#/components/')) as object;
      const validate = ajv.compile(schema);
      if (!validate(media.example)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    };
    for (const { name, op } of operationsOf(doc)) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) check(`${name} body`, type, media);
      for (const [status, response] of Object.entries(op.responses))
        for (const [type, media] of Object.entries(response.content ?? {})) check(`${name} ${status}`, type, media);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(350);
    // Every error shape among them: v4 {message}, v3 codes, the 422 that names each field, the 500 with its error_id.
    const example = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content?.['application/json'].example;
    expect(example('/v4/runs', 'post', '404')).toEqual({ message: 'Not found' });
    expect(example('/v3/tasks', 'post', '400')).toMatchObject({ status: 103, error: 'Body is invalid' });
    expect(example('/v1/workstreams/{workstream_id}/task_reviewed', 'post', '422')).toMatchObject({
      errors: [expect.objectContaining({ field: 'review_score' }), expect.objectContaining({ field: 'colour' })],
    });
    expect(example('/v4/runs', 'post', 'default')).toMatchObject({ error_id: expect.any(String) });
    expect(example('/v3/tasks', 'post', 'default')).toMatchObject({ status: 104, error_id: expect.any(String) });
  });

  it('has examples for the operations it documents only', () => {
    const names = new Set(operationsOf(doc).map((o) => o.name));
    expect(Object.keys(OPERATION_EXAMPLES).filter((name) => !names.has(name))).toEqual([]);
  });

  it('declares each header it references once, in components.headers', () => {
    const refs = [...text.matchAll(/"\$ref": "#\/components\/headers\/([\w-]+)"/g)].map(([, name]) => name);
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((name) => !doc.components.headers[name])).toEqual([]);
  });
});
