import 'reflect-metadata';
import { ALL_SERVICES } from '@workline/contracts';
import { adminCreate, faultPorts, Fleet, http, killKafka, withRetries } from '@workline/testing';
import { randomBytes } from 'node:crypto';

/**
 * Graceful stops after a broker crash (docs/operations.md, "Fault tests"), one instance of every app: every
 * service that lived through a SIGKILL of the Kafka broker (started again) stops on SIGTERM with exit 0, i.e.
 * within its own 60 s shutdown limit (libs/observability installGracefulShutdown exits 1 past it). A stream of
 * quality submissions runs meanwhile, so the services have events and requests under way when it happens.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('restarts after Kafka faults', () => {
  let fleet: Fleet;
  const stream = { on: true };
  let streaming: Promise<void>;

  beforeAll(async () => {
    fleet = await Fleet.start(1, faultPorts().gateways);
    const account = await adminCreate<{ id: string }>('/accounts', { name: `Restarts ${randomBytes(3).toString('hex')}` });
    const ws = await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name: 'Restarts',
      use_cases: [{ id: 'uc-r', task_definition_ids: ['td-r'] }],
      qc_sample_rate: 0,
    });
    const key = (await adminCreate<{ key: string }>(`/workstreams/${ws.id}/api-keys`, {})).key;
    streaming = (async () => {
      for (let i = 0; stream.on; i++) {
        const body = {
          workstream_id: ws.id,
          use_case_id: 'uc-r',
          task_definition_id: 'td-r',
          unique_id: `r${i}`,
          task_id: `r${i}`,
          worker_id: 'bot@example.com',
          review_completed_at: new Date().toISOString(),
          review_score: (i % 10) / 10,
          review_explanation: 'restarts',
        };
        await withRetries(
          () =>
            http('POST', `${fleet.gatewayUrl()}/v1/workstreams/${ws.id}/task_reviewed`, {
              headers: { 'x-api-key': key },
              body,
              timeoutMs: 15_000,
            }),
          Date.now() + 60_000,
        );
        await pause(50);
      }
    })();
  }, 300_000);

  afterAll(async () => {
    stream.on = false;
    await streaming;
    await fleet?.stop();
  });

  it('every service that lived through a broker SIGKILL stops gracefully on SIGTERM', async () => {
    await killKafka();
    await fleet.ready();
    const stops = await Promise.all(ALL_SERVICES.map((app) => fleet.stopGracefully(app, 0)));
    console.log(
      `graceful stops after a broker SIGKILL: ${stops.map((s) => `${s.app} ${s.ms} ms (exit ${s.exit ?? s.signal})`).join(', ')}`,
    );
    for (const app of ALL_SERVICES) fleet.relaunch(app, 0);
    await fleet.ready();
    expect(stops.filter((s) => s.exit !== 0)).toEqual([]);
  }, 600_000);
});
