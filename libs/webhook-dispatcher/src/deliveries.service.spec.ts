import 'reflect-metadata';
import type { DeliveryScope } from '@workline/contracts';
import type { PrismaService } from '@workline/db';
import { Inbox } from '@workline/messaging';
import { DELIVERY_VIEW_COLUMNS, DeliveriesService } from './deliveries.service';
import type { DeliveryScheduler } from './delivery.scheduler';

/** Columns a Delivery API answer never needs: the payload (up to ~10 MB) and what signs or authorises it. */
const HEAVY_OR_SECRET = ['body', 'signing', 'sealedSecret', 'sealedAuthorization', 'leaseToken'];

const row = {
  id: 'dlv_1',
  eventType: 'task.result_available',
  taskId: 'task-1',
  runId: null,
  url: 'https://hooks.example.com/x',
  status: 'pending',
  attemptCount: 1,
  nextAttemptAt: new Date('2026-01-01T00:00:00Z'),
  lastStatusCode: 503,
  lastError: 'HTTP 503',
  createdAt: new Date('2026-01-01T00:00:00Z'),
  deliveredAt: null,
  deadAt: null,
};

/**
 * Records the arguments of every Prisma call the Delivery API makes and answers with the row shape a
 * select of the view's columns returns. The queries' columns are the subject here; PostgreSQL itself is
 * exercised by deliveries.integration-spec.ts.
 */
function recordingPrisma() {
  const calls: { method: string; args: { select?: Record<string, unknown> } }[] = [];
  const record =
    <T>(method: string, answer: T) =>
    async (args: { select?: Record<string, unknown> }) => {
      calls.push({ method, args });
      return answer;
    };
  const client = {
    delivery: {
      findMany: record('delivery.findMany', [row]),
      findFirst: record('delivery.findFirst', { ...row, attempts: [] }),
      findUniqueOrThrow: record('delivery.findUniqueOrThrow', row),
      update: record('delivery.update', row),
    },
    $queryRaw: async () => [{ in_flight: false }],
    $executeRaw: async () => 1,
    $transaction: async <T>(work: (tx: unknown) => Promise<T>) => work(client),
  };
  return { client, calls };
}

describe('Delivery API queries', () => {
  const scope: DeliveryScope = { kind: 'workstream', account_id: 'a', workstream_id: 'w' };
  const setup = () => {
    const prisma = recordingPrisma();
    const scheduler = { poke: () => undefined } as unknown as DeliveryScheduler;
    const inbox = new Inbox(prisma.client as unknown as PrismaService);
    const service = new DeliveriesService(prisma.client as unknown as PrismaService, scheduler, inbox, {
      source: 'webhook-dispatcher',
      instanceId: 'test',
      secretsKey: 'a-secrets-key-of-at-least-thirty-two-characters',
      retryBaseMs: 1000,
      callbackPolicy: {},
      pollMs: 100,
      concurrency: 1,
      originConcurrency: 1,
      leaseMs: 30_000,
    });
    return { service, calls: prisma.calls };
  };

  const selectedColumns = (select: Record<string, unknown> | undefined) => Object.keys(select ?? {}).filter((key) => key !== 'attempts');

  it('lists a page reading only the columns of the list view, never a body', async () => {
    const { service, calls } = setup();
    const page = await service.list({ scope, limit: 100 });
    expect(page.deliveries.map((d) => d.id)).toEqual(['dlv_1']);
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('delivery.findMany');
    expect(calls[0].args.select).toBeDefined();
    expect(calls[0].args.select).toEqual(DELIVERY_VIEW_COLUMNS);
    for (const column of HEAVY_OR_SECRET) expect(DELIVERY_VIEW_COLUMNS).not.toHaveProperty(column);
  });

  it('reads one delivery and a redelivery without the body either', async () => {
    const { service, calls } = setup();
    await service.get({ scope, delivery_id: 'dlv_1' });
    await service.redeliver({ scope, delivery_id: 'dlv_1' });
    expect(calls.map((call) => call.method)).toEqual(['delivery.findFirst', 'delivery.findFirst', 'delivery.findUniqueOrThrow']);
    for (const call of calls) {
      expect(call.args.select).toBeDefined();
      expect(selectedColumns(call.args.select).filter((column) => HEAVY_OR_SECRET.includes(column))).toEqual([]);
    }
  });
});
