import { type Credentials, createWorklineClient, type Middleware, type WorklineClient } from '@workline/client';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testStack } from './stack';

interface MediaType {
  schema?: object;
}
interface HeaderDoc {
  required?: boolean;
  schema: { type?: string };
}
interface ResponseDoc {
  description: string;
  content?: Record<string, MediaType>;
  /** By header name: a declaration, or a reference to one in components.headers. */
  headers?: Record<string, HeaderDoc | { $ref: string }>;
}
interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, ResponseDoc> }>>;
  components: { headers?: Record<string, HeaderDoc> };
}

/** One answer the gateway gave, checked against the committed document. */
export interface CheckedAnswer {
  /** "METHOD /path/{template}" */
  operation: string;
  status: number;
  contentType: string;
  /** The headers the document declares for this answer's status, lower case. */
  declaredHeaders: string[];
  /** Those of them the answer carried, by lower-case name. */
  headers: Record<string, string>;
  /** Empty when the answer matches its documented status, headers, media type and schema. */
  problems: string[];
}

export const OPENAPI_FILE = join(__dirname, '..', '..', '..', 'docs', 'openapi.json');

/**
 * Checks every answer the typed client receives against docs/openapi.json: the status must be documented
 * for the operation (or fall under `default`); the headers it declares for that status present when required
 * and valid against their schemas when sent, and none of the headers the document declares anywhere sent where
 * it does not declare them; the media type among the status's; and a JSON body must validate against its
 * schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). Install it with `client()`.
 */
export class ContractCheck {
  readonly document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApi;
  readonly answers: CheckedAnswer[] = [];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  /** Every header name some response of the document declares, lower case: the headers the gateway sets on purpose. */
  private readonly contractHeaders = new Set(
    Object.values(this.document.paths)
      .flatMap((methods) => Object.values(methods))
      .flatMap((op) => Object.values(op.responses))
      .flatMap((response) => Object.keys(response.headers ?? {}))
      .map((name) => name.toLowerCase()),
  );

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

  /** The operations that always refuse: every success status they document is described "Never" (they answer 403). */
  alwaysRefused(): string[] {
    return Object.entries(this.document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => Object.entries(op.responses).every(([status, r]) => !/^2/.test(status) || r.description.startsWith('Never')))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
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
    const answer: CheckedAnswer = { operation, status: response.status, contentType, declaredHeaders: [], headers: {}, problems: [] };
    const responses = this.document.paths[path]?.[method.toLowerCase()]?.responses;
    if (!responses) return { ...answer, problems: ['not a documented operation'] };
    const key = responses[response.status] ? String(response.status) : responses.default && response.status >= 500 ? 'default' : undefined;
    if (!key) return { ...answer, problems: [`status ${response.status} is not documented`] };
    answer.declaredHeaders = [...this.declaredHeaders(responses[key]).keys()];
    answer.problems.push(...this.checkHeaders(`${path} ${method} ${key}`, responses[key], response.headers, answer.headers));
    const content = responses[key].content;
    if (!content) {
      const text = await response.text();
      if (text) answer.problems.push(`documented without a body, answered ${text.slice(0, 80)}`);
      return answer;
    }
    const mediaType = content[contentType] ? contentType : content['*/*'] ? '*/*' : undefined;
    if (!mediaType) {
      answer.problems.push(`media type ${contentType || '(none)'} is not among ${Object.keys(content).join(', ')}`);
      return answer;
    }
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
    if (!validate(body))
      answer.problems.push(
        ...(validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`),
      );
    return answer;
  }

  /** The declared headers of `documented` (references resolved), by lower-case name. */
  declaredHeaders(documented: ResponseDoc): Map<string, HeaderDoc> {
    return new Map(
      Object.entries(documented.headers ?? {}).map(([name, declared]) => {
        const header = '$ref' in declared ? this.document.components.headers?.[declared.$ref.split('/').pop() as string] : declared;
        if (!header) throw new Error(`${name}: ${JSON.stringify(declared)} resolves to no header of components.headers`);
        return [name.toLowerCase(), header];
      }),
    );
  }

  /**
   * The header problems of one answer: a required header missing, a header whose value its schema refuses
   * (integers read from their text), a contract header sent where it is not declared. Fills `seen` with the
   * declared headers the answer carried.
   */
  private checkHeaders(pointer: string, documented: ResponseDoc, headers: Headers, seen: Record<string, string>): string[] {
    const problems: string[] = [];
    const declared = this.declaredHeaders(documented);
    for (const [name, header] of declared) {
      const value = headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`header ${name} is missing`);
        continue;
      }
      seen[name] = value;
      const numeric = header.schema.type === 'integer' || header.schema.type === 'number';
      const typed = numeric && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      const key = `${pointer} header ${name}`;
      let validate = this.validators.get(key);
      if (!validate) this.validators.set(key, (validate = this.ajv.compile(header.schema)));
      if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
    }
    headers.forEach((_value, name) => {
      if (this.contractHeaders.has(name) && !declared.has(name)) problems.push(`header ${name} is not documented for this status`);
    });
    return problems;
  }
}
