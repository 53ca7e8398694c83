import { adminHeaders, eventually, http, metricSample, testStack, runsAloneOnStack } from '@workline/testing';

interface Health {
  status: string;
  message?: string;
  components: Record<string, { status: string; detail?: string; instance_id?: string }>;
}

const SERVICES = ['performance', 'oversight', 'platform-runs', 'webhook-dispatcher'] as const;

/** Health probes a service has answered over Kafka since it started (its own /metrics). */
async function healthProbesAnswered(service: (typeof SERVICES)[number]): Promise<number> {
  const text = await (await fetch(`${testStack().opsUrls[service]}/metrics`)).text();
  return metricSample(text, 'kafka_handler_duration_seconds_count', { kind: 'rpc', pattern: 'health.check', outcome: 'ok' }) ?? 0;
}

describe('GET /health', () => {
  runsAloneOnStack("SIGSTOPs one of the stack's services to see /health turn");
  it('answers an anonymous caller with its status only: no instance ids, no error texts', async () => {
    const result = await http<Health>('GET', '/health');
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ status: 'ok' });
    const ready = await http<Health>('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok' });
  });

  it('shows every component to the admin token', async () => {
    const result = await http<Health>('GET', '/health', { headers: adminHeaders() });
    expect(result.status).toBe(200);
    expect(result.body.status).toBe('ok');
    expect(Object.keys(result.body.components).sort()).toEqual([
      'gateway',
      'oversight',
      'performance',
      'platform-runs',
      'redis',
      'webhook-dispatcher',
    ]);
    for (const name of ['gateway', 'redis', ...SERVICES]) expect(result.body.components[name]).toMatchObject({ status: 'up' });
    for (const name of SERVICES) expect(result.body.components[name].instance_id).toEqual(expect.any(String));
  });

  it('401 for a wrong token or another credential, never a quiet downgrade to the anonymous answer', async () => {
    for (const authorization of ['Bearer not-the-admin-token-at-all', `Basic ${Buffer.from('user:pass').toString('base64')}`]) {
      const result = await http<{ message: string }>('GET', '/health', { headers: { authorization } });
      expect(result.status).toBe(401);
      expect(result.body).toEqual({ message: 'Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>' });
    }
  });

  it('answers a flood of anonymous probes from one shared check, not four RPCs each', async () => {
    // One check first, so the flood below starts from a result the cache may answer or a single new check.
    expect((await http('GET', '/health')).status).toBe(200);
    const before = await Promise.all(SERVICES.map(healthProbesAnswered));
    const answers = await Promise.all(Array.from({ length: 40 }, () => http<Health>('GET', '/health')));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    const after = await Promise.all(SERVICES.map(healthProbesAnswered));
    // At most one check for the flood (plus one if the cached result aged out while it arrived).
    const probes = SERVICES.map((service, i) => ({ service, probes: after[i] - before[i] }));
    expect(probes.filter((p) => p.probes > 2)).toEqual([]);
  });

  it('is 503 when a service does not answer: the admin token is told which, anyone else only the status; 200 again once it is back', async () => {
    const pid = testStack().pids['platform-runs'];
    process.kill(pid, 'SIGSTOP');
    try {
      const down = await http<Health>('GET', '/health', { headers: adminHeaders() });
      expect(down.status).toBe(503);
      expect(down.body.message).toBe('Down: platform-runs: no answer over Kafka');
      expect(down.body.components['platform-runs']).toMatchObject({ status: 'down', detail: expect.stringMatching(/did not answer/) });
      expect(down.body.components.performance).toMatchObject({ status: 'up' });
      const anonymous = await eventually(
        async () => {
          const result = await http<Health>('GET', '/health');
          return result.status === 503 ? result : undefined;
        },
        { what: 'the anonymous /health to be 503' },
      );
      expect(anonymous.body).toEqual({ status: 'unavailable' });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await eventually(async () => (await http('GET', '/health', { headers: adminHeaders() })).status === 200, {
      what: '/health to be 200 again for the admin token',
    });
    await eventually(async () => (await http('GET', '/health')).status === 200, { what: '/health to be 200 again' });
  });
});
