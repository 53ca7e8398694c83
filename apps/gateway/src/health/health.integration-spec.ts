import { eventually, http, testStack } from '@workline/testing';

interface Health {
  status: string;
  message?: string;
  components: Record<string, { status: string; detail?: string }>;
}

describe('GET /health', () => {
  it('is 200 when every service answers over Kafka and reaches its database', async () => {
    const result = await http<Health>('GET', '/health');
    expect(result.status).toBe(200);
    expect(result.body.status).toBe('ok');
    for (const name of ['gateway', 'redis', 'performance', 'oversight', 'platform-runs', 'webhook-dispatcher']) {
      expect(result.body.components[name]).toMatchObject({ status: 'up' });
    }
  });

  it('is 503 naming the service that does not answer, and 200 again once it is back', async () => {
    const pid = testStack().pids['platform-runs'];
    process.kill(pid, 'SIGSTOP');
    try {
      const down = await http<Health>('GET', '/health');
      expect(down.status).toBe(503);
      expect(down.body.message).toBe('Down: platform-runs: no answer over Kafka');
      expect(down.body.components['platform-runs']).toMatchObject({ status: 'down', detail: expect.stringMatching(/did not answer/) });
      expect(down.body.components.performance).toMatchObject({ status: 'up' });
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await eventually(async () => (await http('GET', '/health')).status === 200, { what: '/health to be 200 again' });
  });
});
