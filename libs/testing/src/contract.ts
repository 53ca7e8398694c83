import { type Credentials, createWorklineClient, type Middleware, type WorklineClient } from '@workline/client';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testStack } from './stack';

interface MediaType {
  schema?: object;
}
interface ResponseDoc {
  content?: Record<string, MediaType>;
}
interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, ResponseDoc> }>>;
  components: object;
}

/** One answer the gateway gave, checked against the committed document. */
export interface CheckedAnswer {
  /** "METHOD /path/{template}" */
  operation: string;
  status: number;
  contentType: string;
  /** Empty when the answer matches its documented status, media type and schema. */
  problems: string[];
}

export const OPENAPI_FILE = join(__dirname, '..', '..', '..', 'docs', 'openapi.json');

/**
 * Checks every answer the typed client receives against docs/openapi.json: the status must be documented
 * for the operation (or fall under `default`), the media type among the status's, and a JSON body must
 * validate against its schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). Install it with `client()`.
 */
export class ContractCheck {
  readonly document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApi;
  readonly answers: CheckedAnswer[] = [];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor() {
    this.ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema({ $id: 'openapi', components: this.document.components });
  }

  /** The middleware: records and checks each answer; never changes it. */
  readonly middleware: Middleware = {
    onResponse: async ({ request, response, schemaPath }) => {
      this.answers.push(await this.checkAnswer(request.method, schemaPath, response.clone()));
      return undefined;
    },
  };

  /** A typed client for the test stack's gateway whose answers are all checked. */
  client(credentials: Credentials = {}, baseUrl = testStack().gatewayUrl): WorklineClient {
    const client = createWorklineClient(baseUrl, credentials);
    client.use(this.middleware);
    return client;
  }

  /** Every documented operation, as "METHOD /path". */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
  }

  async checkAnswer(method: string, path: string, response: Response): Promise<CheckedAnswer> {
    const operation = `${method.toUpperCase()} ${path}`;
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const answer: CheckedAnswer = { operation, status: response.status, contentType, problems: [] };
    const responses = this.document.paths[path]?.[method.toLowerCase()]?.responses;
    if (!responses) return { ...answer, problems: ['not a documented operation'] };
    const key = responses[response.status] ? String(response.status) : responses.default && response.status >= 500 ? 'default' : undefined;
    if (!key) return { ...answer, problems: [`status ${response.status} is not documented`] };
    const content = responses[key].content;
    if (!content) {
      const text = await response.text();
      return { ...answer, problems: text ? [`documented without a body, answered ${text.slice(0, 80)}`] : [] };
    }
    const mediaType = content[contentType] ? contentType : content['*/*'] ? '*/*' : undefined;
    if (!mediaType)
      return { ...answer, problems: [`media type ${contentType || '(none)'} is not among ${Object.keys(content).join(', ')}`] };
    if (contentType !== 'application/json') return answer;
    const pointer = `${path} ${method} ${key}`;
    let validate = this.validators.get(pointer);
    if (!validate) {
      // The schema's #/components/... references, resolved in the document added as "openapi".
      const schema = JSON.parse(
        JSON.stringify(content[mediaType].schema ?? {}).replace(/"#\/components\//g, '"openapi#/components/'),
      ) as object;
      validate = this.ajv.compile(schema);
      this.validators.set(pointer, validate);
    }
    const body: unknown = JSON.parse(await response.text());
    return validate(body)
      ? answer
      : {
          ...answer,
          problems: (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`),
        };
  }
}
