import 'reflect-metadata';
import type { Schemas } from '@workline/client';
import { type DeliveryRequestedEvent, type EventEnvelope, Topic } from '@workline/contracts';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { adminClient, apiClient, ok, withStatus } from './api';
import { eventually } from './eventually';
import { testStack } from './stack';
import { TopicWatcher } from './topic-reader';

/** The platform API's timestamps: YYYY-MM-DDTHH:MM:SSZ. */
export const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Opens a sealed secret of an event (e.g. sealed_authorization) with the stack's SECRETS_KEY. */
export const openSealed = (sealed: string) =>
  new SecretBox(testStack().appEnv.SECRETS_KEY ?? 'workline-development-secrets-key-do-not-use-in-production').open(sealed);

/** A platform API client account with one production line, and its Basic header. */
export interface PlatformAccount {
  id: string;
  username: string;
  password: string;
  lineId: string;
  auth: Record<string, string>;
}

export const basicHeader = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

export async function createPlatformAccount(lineName = 'Line'): Promise<PlatformAccount> {
  const admin = adminClient();
  const account = await ok(admin.POST('/admin/v1/accounts', { body: { name: `Platform ${randomUUID().slice(0, 6)}` } }), 201);
  const line = await ok(
    admin.POST('/admin/v1/accounts/{account_id}/lines', { params: { path: { account_id: account.id } }, body: { name: lineName } }),
    201,
  );
  return {
    id: account.id,
    username: account.username,
    password: account.password,
    lineId: line.id,
    auth: basicHeader(account.username, account.password),
  };
}

/** The typed client of a platform account (its Basic credentials), of the test stack's gateway or of `baseUrl`. */
export const platformClient = (account: { username: string; password: string }, baseUrl?: string) =>
  apiClient({ basic: { username: account.username, password: account.password } }, baseUrl);

/** Creates a v4 run of `units` on the account's line (with a callback URL or not): its id; throws unless 201. */
export async function newRun(account: PlatformAccount, units: Record<string, unknown>[], callbackUrl?: string): Promise<string> {
  const body = { line_id: account.lineId, units, ...(callbackUrl ? { callback_url: callbackUrl } : {}) };
  return (await ok(platformClient(account).POST('/v4/runs', { body }), 201)).id;
}

/** A v4 run as its account reads it (every unit); throws unless 200. */
export const runOf = (account: PlatformAccount, runId: string): Promise<Schemas['RunAnswer']> =>
  ok(platformClient(account).GET('/v4/runs/{id}', { params: { path: { id: runId } } }), 200);

/** Every run the admin API lists for an account or a line (all pages), newest first. */
export async function listedRuns(filter: { account_id?: string; line_id?: string }): Promise<Schemas['AdminRunAnswer'][]> {
  const runs: Schemas['AdminRunAnswer'][] = [];
  const admin = adminClient();
  let cursor: string | undefined;
  do {
    const page = await ok(admin.GET('/admin/v1/runs', { params: { query: { ...filter, limit: 100, cursor } } }), 200);
    runs.push(...page.runs);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return runs;
}

/** A worker of the work API: its bearer token. */
export async function newWorkerToken(): Promise<string> {
  const worker = adminClient().POST('/admin/v1/workers', { body: { email: `w.${randomUUID()}@example.com`, name: 'Worker' } });
  return (await ok(worker, 201)).token;
}

/** A worker of the work API: its bearer header. */
export async function createWorker(): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await newWorkerToken()}` };
}

export type UnitAssignment = Schemas['UnitAssignmentAnswer'];

/** Leases the next unit of `lineId` (a line per test keeps tests apart); undefined on 204. */
export async function nextUnit(
  worker: Record<string, string>,
  lineId: string,
  baseUrl = testStack().gatewayUrl,
): Promise<UnitAssignment | undefined> {
  const { data, error, response } = await apiClient({}, baseUrl).POST('/workforce/v1/assignments/next', {
    headers: worker,
    body: { kind: 'unit', line_id: lineId },
  });
  if (response.status === 204) return undefined;
  if (response.status !== 200 || data?.kind !== 'unit')
    throw new Error(`next answered ${response.status}: ${JSON.stringify(error ?? data)}`);
  return data;
}

/** Completes a unit assignment with this output (typed client); the answer, with its status as `status`. */
export function completeUnit(
  worker: Record<string, string>,
  assignmentId: string,
  body: Schemas['CompleteUnitAssignmentDto'],
  baseUrl = testStack().gatewayUrl,
) {
  return withStatus(
    apiClient({}, baseUrl).POST('/workforce/v1/assignments/{id}/complete', {
      headers: worker,
      params: { path: { id: assignmentId } },
      body,
    }),
  );
}

/** Flags a unit assignment (typed client); the answer, with its status as `status`. */
export function flagUnit(worker: Record<string, string>, assignmentId: string, reason: string) {
  return withStatus(
    apiClient().POST('/workforce/v1/assignments/{id}/flag', { headers: worker, params: { path: { id: assignmentId } }, body: { reason } }),
  );
}

/** Reads Topic.DeliveryRequested from when it starts, keyed by subject.run_id. */
export class DeliveryWatcher {
  private constructor(private readonly watcher: TopicWatcher) {}

  static async start(): Promise<DeliveryWatcher> {
    return new DeliveryWatcher(await TopicWatcher.start([Topic.DeliveryRequested]));
  }

  /** The deliveries requested for a run so far (more than one would be a bug). */
  of(runId: string): DeliveryRequestedEvent[] {
    return this.watcher
      .messages<EventEnvelope<DeliveryRequestedEvent>>(Topic.DeliveryRequested)
      .map((message) => message.value.data)
      .filter((event) => event?.subject?.run_id === runId);
  }

  first(runId: string, timeoutMs = 30_000): Promise<DeliveryRequestedEvent> {
    return eventually(() => this.of(runId)[0], { what: `the DeliveryRequested event of run ${runId}`, timeoutMs });
  }

  stop(): Promise<void> {
    return this.watcher.stop();
  }
}
