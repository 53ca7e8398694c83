import 'reflect-metadata';
import { ALL_SERVICES } from '@workline/contracts';
import { adminCreate, faultPorts, Fleet, http, killKafka, withRetries } from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFaultReport } from './fault-audit';

/**
 * Graceful stops after a broker crash (docs/operations.md, "Fault tests"), one instance of every app: every
 * service that lived through a SIGKILL of the Kafka broker (started again) stops on SIGTERM with exit 0, i.e.
 * within its own 60 s shutdown limit (libs/service-runtime installGracefulShutdown exits 1 past it). A stream of
 * quality submissions runs meanwhile, so the services have events and requests under way when it happens.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const REPORT_DIR = join(__dirname, '..', '..', '.cache', 'faults');
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

describe('restarts after Kafka faults', () => {
  let fleet: Fleet;
  const stream = { on: true, sent: 0, accepted: 0 };
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
        stream.sent++;
        const { result } = await withRetries(
          () =>
            http('POST', `${fleet.gatewayUrl()}/v1/workstreams/${ws.id}/task_reviewed`, {
              headers: { 'x-api-key': key },
              body,
              timeoutMs: 15_000,
            }),
          Date.now() + 60_000,
        );
        if (result?.status === 202) stream.accepted++;
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
    const faultLog: [string, string][] = [];
    const killed = Date.now();
    await killKafka();
    await fleet.ready();
    faultLog.push(['SIGKILL Kafka broker, restart', `${seconds(killed)} to ready`]);
    const stopping = Date.now();
    const stops = await Promise.all(ALL_SERVICES.map((app) => fleet.stopGracefully(app, 0)));
    faultLog.push(['SIGTERM every service at once', `${seconds(stopping)} until the last one exited`]);
    const restarted = Date.now();
    for (const app of ALL_SERVICES) fleet.relaunch(app, 0);
    await fleet.ready();
    faultLog.push(['every service started again', `${seconds(restarted)} to ready`]);
    expect(stops.filter((s) => s.exit !== 0)).toEqual([]);
    const summary: Record<string, string | number> = {
      'quality records sent / answered 202 meanwhile': `${stream.sent} / ${stream.accepted}`,
      ...Object.fromEntries(
        stops.map((s) => [`${s.app}: graceful stop (exit code)`, `${(s.ms / 1000).toFixed(1)} s (exit ${s.exit ?? s.signal})`]),
      ),
    };
    console.log(writeFaultReport(join(REPORT_DIR, 'report-restarts.md'), 'Graceful stops after a Kafka broker SIGKILL', faultLog, summary));
  }, 600_000);
});
