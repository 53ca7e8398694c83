/**
 * The OpenAPI decorators of the gateway's controllers, in the house's terms: `@ApiArea(tag, security)` on a
 * controller and `@ApiDoc({...})` on each handler. They apply @nestjs/swagger's decorators (summary, body,
 * query, success response) and leave what depends on the path or the credentials (error bodies per API
 * group, auth errors, rate-limit headers) to openapi.ts, which reads it from `x-workline-*` extensions and
 * removes them. Schemas are referenced by contract class name; openapi.ts derives them from the classes'
 * class-validator decorators. All of it is metadata read when the document is built: no request pays for it.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtension, ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  classSchema,
  type ContractClass,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  type JsonSchema,
  type PerformanceKind,
  RECORD_SCHEMA_NAMES,
  recordSchema,
  SCHEMA_REF_PREFIX,
} from '@workline/contracts';

/** Who may call an operation. signedUrl: the URL's own signature; none: anyone. */
export type Security = 'apiKey' | 'basic' | 'apiKeyOrBasic' | 'worker' | 'admin' | 'signedUrl' | 'none';

export const TAGS = [
  'operations',
  'identity',
  'performance',
  'oversight',
  'deliveries',
  'platform v4',
  'platform v3',
  'work',
  'admin',
] as const;
export type Tag = (typeof TAGS)[number];

/** A JSON answer or body: a contract class, an array of one, or one of several. */
export type Shape = ContractClass | [ContractClass] | { oneOf: ContractClass[] };
/** Non-JSON content by media type, e.g. `{'text/csv': {type: 'string'}}`. */
export type Content = Record<`${string}/${string}`, JsonSchema>;

export interface OperationDoc {
  summary: string;
  /** The page of docs/ that documents the operation. */
  doc: string;
  /** Success status, its description and what it carries. */
  ok: [number, string, (Shape | Content)?];
  /** Other success answers, e.g. 204 for "nothing to do". */
  alsoOk?: [number, string][];
  /** Error statuses beyond the authentication ones of the security. */
  errors?: number[];
  /** Error statuses whose body is not the API group's error shape (e.g. a 503 health report). */
  errorAnswers?: Record<number, ContractClass>;
  /** A JSON body, other content by media type, or a performance record (its schema derived from the service's rule table). */
  body?: Shape | Content | { record: PerformanceKind };
  /** Query parameters, from a contract class's properties. */
  query?: ContractClass;
  /** Takes an optional Idempotency-Key header (a creation a client may retry safely). */
  idempotent?: true;
  /** Overrides the controller's security. */
  security?: Security;
}

export const SECURITY_EXTENSION = 'x-workline-security';
export const ERRORS_EXTENSION = 'x-workline-errors';
export const IDEMPOTENT_EXTENSION = 'x-workline-idempotent';

export const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid JSON or body',
  401: 'Missing or bad credentials',
  403: 'Forbidden (or a bad or expired URL signature)',
  404: 'Not found',
  405: 'Not allowed in the current state',
  409: 'Conflict with the current state',
  410: 'The API was withdrawn (V3_ENABLED=false)',
  413: 'Body larger than the limit',
  415: 'Unsupported Content-Type',
  422: 'Validation failed; the message names the fields',
  429: 'Rate limit, failed-authentication limit or quota exceeded (Retry-After)',
  503: 'A service did not answer in time',
};

/** The contract classes the decorators reference: openapi.ts puts their schemas in components.schemas. */
export const referencedClasses = new Set<ContractClass>();

export function ref(cls: ContractClass): JsonSchema {
  referencedClasses.add(cls);
  return { $ref: `${SCHEMA_REF_PREFIX}${cls.name}` };
}

function isContent(value: Shape | Content): value is Content {
  return typeof value === 'object' && !Array.isArray(value) && !('oneOf' in value) && Object.keys(value).every((key) => key.includes('/'));
}

export function shapeSchema(shape: Shape): JsonSchema {
  if (Array.isArray(shape)) return { type: 'array', items: ref(shape[0]) };
  if ('oneOf' in shape) return { oneOf: shape.oneOf.map(ref) };
  return ref(shape);
}

/** Schemas that are no contract class (the performance records), by name: openapi.ts puts them in components.schemas. */
export const referencedSchemas = new Map<string, JsonSchema>();

/** A performance record: its schema derived from the rule table the service checks it with (libs/contracts, RECORD_FIELDS). */
function recordRef(kind: PerformanceKind): JsonSchema {
  referencedSchemas.set(RECORD_SCHEMA_NAMES[kind], recordSchema(kind));
  return { $ref: `${SCHEMA_REF_PREFIX}${RECORD_SCHEMA_NAMES[kind]}` };
}

const isRecord = (body: OperationDoc['body']): body is { record: PerformanceKind } =>
  typeof body === 'object' && !Array.isArray(body) && 'record' in body;

/** A controller's API group (tag) and who may call it. */
export function ApiArea(tag: Tag, security: Security): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiExtension(SECURITY_EXTENSION, { value: security })) as ClassDecorator;
}

/** One operation: summary, body, query, success answer; errors and security completed by openapi.ts. */
export function ApiDoc(op: OperationDoc): MethodDecorator {
  const decorators: (MethodDecorator | ClassDecorator)[] = [ApiOperation({ summary: op.summary, description: `See ${op.doc}.` })];
  const [status, description, answer] = op.ok;
  if (answer === undefined) {
    decorators.push(ApiResponse({ status, description }));
  } else if (isContent(answer)) {
    decorators.push(ApiProduces(...Object.keys(answer)), ApiResponse({ status, description, content: mediaContent(answer) }));
  } else {
    decorators.push(ApiResponse({ status, description, schema: shapeSchema(answer) as never }));
  }
  for (const [other, text] of op.alsoOk ?? []) decorators.push(ApiResponse({ status: other, description: text }));
  if (isRecord(op.body)) {
    decorators.push(ApiBody({ required: true, schema: recordRef(op.body.record) as never }));
  } else if (op.body && isContent(op.body)) {
    // One schema for every media type the body may have (a CSV text, or the bytes of a file).
    decorators.push(ApiConsumes(...Object.keys(op.body)), ApiBody({ required: true, schema: Object.values(op.body)[0] as never }));
  } else if (op.body) {
    decorators.push(ApiBody({ required: true, schema: shapeSchema(op.body) as never }));
  }
  if (op.query) decorators.push(...queryParameters(op.query));
  if (op.idempotent) {
    decorators.push(
      ApiHeader({
        name: IDEMPOTENCY_KEY_HEADER,
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
        description:
          'Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, ' +
          'nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). ' +
          'Scope: the workstream (tasks), the account (runs) or the rotated key (key rotation). See docs/decisions.md.',
      }),
      ApiExtension(IDEMPOTENT_EXTENSION, { value: true }),
    );
  }
  if (op.security) decorators.push(ApiExtension(SECURITY_EXTENSION, { value: op.security }));
  if (op.errors?.length) decorators.push(ApiExtension(ERRORS_EXTENSION, { value: op.errors }));
  for (const [other, cls] of Object.entries(op.errorAnswers ?? {}))
    decorators.push(ApiResponse({ status: Number(other), description: ERROR_TEXT[Number(other)] ?? 'Error', schema: ref(cls) as never }));
  return applyDecorators(...decorators) as MethodDecorator;
}

function mediaContent(content: Content): Record<string, { schema: never }> {
  return Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema: schema as never }]));
}

/** One query parameter per property of the class, with the schema its decorators state. */
function queryParameters(cls: ContractClass): MethodDecorator[] {
  const schema = classSchema(cls);
  return Object.entries(schema.properties ?? {}).map(([name, property]) =>
    ApiQuery({ name, required: (schema.required ?? []).includes(name), schema: withoutNull(property) as never }),
  );
}

/** A query parameter is a string or absent, never JSON null: the `null` IsOptional adds means nothing here. */
function withoutNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  if (schema.anyOf) {
    const rest = schema.anyOf.filter((s) => s.type !== 'null');
    return rest.length === 1 ? rest[0] : { ...schema, anyOf: rest };
  }
  return schema;
}
