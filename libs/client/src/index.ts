import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi';

/**
 * The typed client of Workline's HTTP API: openapi-fetch over the types openapi-typescript generates from
 * docs/openapi.json (`npm run openapi` writes both), so a call's path, parameters, body and answer are
 * checked by the compiler against the published contract. Error answers come back typed per API group
 * (`error`), never thrown.
 */
export type { components, operations, paths };
export type { Middleware };
export type WorklineClient = Client<paths, 'application/json'>;
export type Schemas = components['schemas'];
/** The query parameters of an operation (by its operationId), e.g. QueryOf<'getV1Deliveries'>. */
export type QueryOf<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>;

/** How the client authenticates: an API key, the account's Basic credentials, or a Bearer token (worker or admin). */
export type Credentials =
  { apiKey: string } | { basic: { username: string; password: string } } | { bearer: string } | Record<string, never>;

export function authHeaders(credentials: Credentials): Record<string, string> {
  if ('apiKey' in credentials) return { 'x-api-key': credentials.apiKey };
  if ('basic' in credentials)
    return { authorization: `Basic ${Buffer.from(`${credentials.basic.username}:${credentials.basic.password}`).toString('base64')}` };
  if ('bearer' in credentials) return { authorization: `Bearer ${credentials.bearer}` };
  return {};
}

export function createWorklineClient(
  baseUrl: string,
  credentials: Credentials = {},
  options: Omit<ClientOptions, 'baseUrl'> = {},
): WorklineClient {
  return createClient<paths, 'application/json'>({
    ...options,
    baseUrl,
    headers: { ...authHeaders(credentials), ...(options.headers as Record<string, string> | undefined) },
  });
}
