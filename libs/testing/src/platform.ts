import 'reflect-metadata';
import { type AdminRunView, type DeliveryRequestedEvent, type EventEnvelope, type RunPage, Topic } from '@workline/contracts';
import { createKafka } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';
import { adminCreate, adminHeaders, http, type HttpResult } from './http';
import { testStack } from './stack';

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
  const account = await adminCreate<{ id: string; username: string; password: string }>('/accounts', {
    name: `Platform ${randomUUID().slice(0, 6)}`,
  });
  const line = await adminCreate<{ id: string }>(`/accounts/${account.id}/lines`, { name: lineName });
  return {
    id: account.id,
    username: account.username,
    password: account.password,
    lineId: line.id,
    auth: basicHeader(account.username, account.password),
  };
}

/** Every run the admin API lists for an account or a line (all pages), newest first. */
export async function listedRuns(filter: { account_id?: string; line_id?: string }): Promise<AdminRunView[]> {
  const runs: AdminRunView[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ ...filter, limit: '100', ...(cursor ? { cursor } : {}) });
    const page: HttpResult<RunPage> = await http<RunPage>('GET', `/admin/v1/runs?${query}`, { headers: adminHeaders() });
    if (page.status !== 200) throw new Error(`GET /admin/v1/runs answered ${page.status}: ${page.text}`);
    runs.push(...page.body.runs);
    cursor = page.body.next_cursor;
  } while (cursor);
  return runs;
}

/** A worker of the work API: its bearer token. */
export async function newWorkerToken(): Promise<string> {
  return (await adminCreate<{ token: string }>('/workers', { email: `w.${randomUUID()}@example.com`, name: 'Worker' })).token;
}

/** A worker of the work API: its bearer header. */
export async function createWorker(): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await newWorkerToken()}` };
}

export interface UnitAssignment {
  assignment_id: string;
  kind: 'unit';
  run_id: string;
  line_id: string;
  input: Record<string, unknown>;
}

/** Leases the next unit of `lineId` (a line per test keeps tests apart); undefined on 204. */
export async function nextUnit(
  worker: Record<string, string>,
  lineId: string,
  baseUrl = testStack().gatewayUrl,
): Promise<UnitAssignment | undefined> {
  const result = await http<UnitAssignment>('POST', `${baseUrl}/workforce/v1/assignments/next`, {
    headers: worker,
    body: { kind: 'unit', line_id: lineId },
  });
  if (result.status === 204) return undefined;
  if (result.status !== 200) throw new Error(`next answered ${result.status}: ${result.text}`);
  return result.body;
}

export function completeUnit(
  worker: Record<string, string>,
  assignmentId: string,
  body: unknown,
  baseUrl = testStack().gatewayUrl,
): Promise<HttpResult> {
  return http('POST', `${baseUrl}/workforce/v1/assignments/${assignmentId}/complete`, { headers: worker, body });
}

export function flagUnit(worker: Record<string, string>, assignmentId: string, reason: string): Promise<HttpResult> {
  return http('POST', `/workforce/v1/assignments/${assignmentId}/flag`, { headers: worker, body: { reason } });
}

type Consumer = ReturnType<ReturnType<typeof createKafka>['consumer']>;

/** Reads Topic.DeliveryRequested in a group of its own, from the beginning, keyed by subject.run_id. */
export class DeliveryWatcher {
  private readonly seen = new Map<string, DeliveryRequestedEvent[]>();

  private constructor(private readonly consumer: Consumer) {}

  static async start(): Promise<DeliveryWatcher> {
    const kafka = createKafka({ brokers: testStack().kafkaBrokers, app: 'test-deliveries', instanceId: randomUUID() });
    const consumer = kafka.consumer({ groupId: `test-deliveries-${randomUUID()}` });
    const watcher = new DeliveryWatcher(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: Topic.DeliveryRequested, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const envelope = JSON.parse(message.value?.toString() ?? '{}') as EventEnvelope<DeliveryRequestedEvent>;
        const runId = envelope.data?.subject?.run_id;
        if (runId) watcher.seen.set(runId, [...(watcher.seen.get(runId) ?? []), envelope.data]);
      },
    });
    return watcher;
  }

  /** The deliveries requested for a run so far (more than one would be a bug). */
  of(runId: string): DeliveryRequestedEvent[] {
    return this.seen.get(runId) ?? [];
  }

  first(runId: string, timeoutMs = 30_000): Promise<DeliveryRequestedEvent> {
    return eventually(() => this.of(runId)[0], { what: `the DeliveryRequested event of run ${runId}`, timeoutMs });
  }

  stop(): Promise<void> {
    return this.consumer.disconnect();
  }
}
