import { type Credentials, createWorklineClient, type Schemas, type WorklineClient } from '@workline/client';
import { testStack } from './stack';

/**
 * The typed client (libs/client, generated from the committed docs/openapi.json) of the test stack's gateway, or
 * of the gateway at `baseUrl`. The e2e suites and these helpers send every request of a valid shape with it, so
 * the compiler checks its path, parameters and body, and the answer's fields the test reads, against the published
 * contract. What it cannot send (malformed JSON, wrong types, other content types, unknown paths...) goes through
 * http(): docs/decisions.md, "OpenAPI from the code, and a typed client".
 */
export const apiClient = (credentials: Credentials = {}, baseUrl = testStack().gatewayUrl): WorklineClient =>
  createWorklineClient(baseUrl, credentials);

/** The typed client with the test stack's admin token. */
export const adminClient = (baseUrl?: string): WorklineClient => apiClient({ bearer: testStack().adminToken }, baseUrl);

/** A typed client's answer (openapi-fetch): the parsed body as `data` (2xx) or `error`, and the Response. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a typed call's answer; unless its status is `expected`, throws naming the path, the status and the body. */
export async function ok<T>(call: Promise<Answer<T>>, expected: number): Promise<T> {
  const { data, error, response } = await call;
  if (response.status !== expected)
    throw new Error(`${new URL(response.url).pathname} answered ${response.status}: ${JSON.stringify(error ?? data)}`);
  return data as T;
}

/** The field errors of an answer (`errors` of ErrorAnswer, what a 422 of the admin, v1 and work APIs carries). */
export const fieldErrors = (answer: { error?: unknown }): Schemas['FieldErrorAnswer'][] | null | undefined =>
  (answer.error as Schemas['ErrorAnswer'] | undefined)?.errors;

/** A typed call's answer with its status beside `data`, `error` and `response` (what callers that check only the status read). */
export async function withStatus<A extends Answer<unknown>>(call: Promise<A>): Promise<A & { status: number }> {
  const answer = await call;
  return { ...answer, status: answer.response.status };
}
