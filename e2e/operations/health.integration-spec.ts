import type { Schemas } from '@workline/client';
import { ALL_APPS, ALL_SERVICES, type ServiceName } from '@workline/contracts';
import { adminClient, apiClient, eventually, metricSample, testStack, runsAloneOnStack, withStatus } from '@workline/testing';

type Health = Schemas['HealthAnswer'];
const anonymous = apiClient();
const admin = adminClient();
/** GET /health (typed client): the answer, its body (200 and 503 carry the same view) and status. */
const health = async (client = anonymous) => {
  const { data, error, response } = await client.GET('/health');
  return { status: response.status, body: (data ?? error) as Health };
};

/** What /health reports on: every app, and Redis. */
const COMPONENTS = [...ALL_APPS, 'redis'].sort();

/** Health probes a service has answered over Kafka since it started (its own /metrics: the service's ops server, not the gateway's API). */
async function healthProbesAnswered(service: ServiceName): Promise<number> {
  const text = await (await fetch(`${testStack().opsUrls[service]}/metrics`)).text();
  return metricSample(text, 'kafka_handler_duration_seconds_count', { kind: 'rpc', pattern: 'health.check', outcome: 'ok' }) ?? 0;
}

describe('GET /health', () => {
  runsAloneOnStack("SIGSTOPs one of the stack's services to see /health turn");
  it('answers an anonymous caller with its status only: no instance ids, no error texts', async () => {
    const result = await health();
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: 'ok' });
    const ready = await withStatus(anonymous.GET('/health/ready'));
    expect(ready.status).toBe(200);
    expect(ready.data).toEqual({ status: 'ok' });
  });

  it('shows every component to the admin token', async () => {
    const result = await health(admin);
    expect(result.status).toBe(200);
    expect(result.body.status).toBe('ok');
    expect(Object.keys(result.body.components ?? {}).sort()).toEqual(COMPONENTS);
    for (const name of COMPONENTS) expect(result.body.components?.[name]).toMatchObject({ status: 'up' });
    for (const name of ALL_SERVICES) expect(result.body.components?.[name].instance_id).toEqual(expect.any(String));
  });

  it('401 for a wrong token or another credential, never a quiet downgrade to the anonymous answer', async () => {
    for (const client of [
      apiClient({ bearer: 'not-the-admin-token-at-all' }),
      apiClient({ basic: { username: 'user', password: 'pass' } }),
    ]) {
      const result = await health(client);
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ message: 'Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>' });
    }
  });

  it('answers a flood of anonymous probes from one shared check, not four RPCs each', async () => {
    // One check first, so the flood below starts from a result the cache may answer or a single new check.
    expect((await health()).status).toBe(200);
    const before = await Promise.all(ALL_SERVICES.map(healthProbesAnswered));
    const answers = await Promise.all(Array.from({ length: 40 }, () => health()));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    const after = await Promise.all(ALL_SERVICES.map(healthProbesAnswered));
    // At most one check for the flood (plus one if the cached result aged out while it arrived).
    const probes = ALL_SERVICES.map((service, i) => ({ service, probes: after[i] - before[i] }));
    expect(probes.filter((p) => p.probes > 2)).toEqual([]);
  });

  it(
    'is 503 when a service does not answer: ' + 'the admin token is told which, anyone else only the status; 200 again once it is back',
    async () => {
      const pid = testStack().pids['platform-runs'];
      process.kill(pid, 'SIGSTOP');
      try {
        const down = await health(admin);
        expect(down.status).toBe(503);
        expect(down.body.message).toBe('Down: platform-runs: no answer over Kafka');
        expect(down.body.components?.['platform-runs']).toMatchObject({ status: 'down', detail: expect.stringMatching(/did not answer/) });
        expect(down.body.components?.performance).toMatchObject({ status: 'up' });
        const unavailable = await eventually(
          async () => {
            const result = await health();
            return result.status === 503 ? result : undefined;
          },
          { what: 'the anonymous /health to be 503' },
        );
        expect(unavailable.body).toEqual({ status: 'unavailable' });
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await eventually(async () => (await health(admin)).status === 200, { what: '/health to be 200 again for the admin token' });
      await eventually(async () => (await health()).status === 200, { what: '/health to be 200 again' });
    },
  );
});
