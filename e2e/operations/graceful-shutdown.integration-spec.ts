import { apiClient, type AppInstance, eventually, startAppInstance, startGateway, runsAloneOnStack } from '@workline/testing';
import { randomUUID } from 'node:crypto';

/**
 * One instance's SIGTERM, seen from outside. The rolling restart of every instance under load (zero 5xx, zero
 * connection errors, everything answered 2xx stored exactly once) runs in the fault suite's two-instance fleet
 * (e2e/faults/faults.faults-spec.ts), which reuses that suite's client streams and audit.
 */

type Readiness = { status: number; body: { status?: string } };

/** GET a service's readiness URL (its ops server, outside the gateway's API); 0 when nothing answers (gone, or not listening yet). */
async function readiness(url: string): Promise<Readiness> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: (await response.json()) as { status?: string } };
  } catch {
    return { status: 0, body: {} };
  }
}

/** The gateway's readiness (typed client); 0 when nothing answers. */
async function gatewayReadiness(baseUrl: string): Promise<Readiness> {
  try {
    const { data, error, response } = await apiClient({}, baseUrl).GET('/health/ready', { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: (data ?? error ?? {}) as { status?: string } };
  } catch {
    return { status: 0, body: {} };
  }
}

const waitReady = (url: string, what: string) =>
  eventually(async () => (await readiness(url)).status === 200, { what: `${what} to be ready`, timeoutMs: 120_000, intervalMs: 250 });

/** Starts a service instance and waits for its readiness (consumer in its group, database reachable). */
async function startService(app: string, extraEnv: Record<string, string> = {}): Promise<AppInstance & { ops: string }> {
  const instance = startAppInstance(app, extraEnv, `${app}-shutdown-${randomUUID().slice(0, 8)}`);
  const ops = await instance.opsUrl();
  await waitReady(`${ops}/health/ready`, `${app} (${ops})`);
  return { ...instance, ops };
}

describe('graceful shutdown (SIGTERM)', () => {
  runsAloneOnStack('adds service instances to their consumer groups and stops them');
  it('turns readiness to 503 at once, keeps answering while draining, then exits 0 (gateway and a service)', async () => {
    // Long enough a drain to see both answer 503 while still serving; both start at once.
    const drain = { SHUTDOWN_DELAY_MS: '5000' };
    const [gateway, service] = await Promise.all([startGateway(drain), startService('performance', drain)]);
    try {
      gateway.process.kill('SIGTERM');
      service.process.kill('SIGTERM');
      const draining = await eventually(
        async () => {
          const ready = await gatewayReadiness(gateway.url);
          return ready.status === 503 ? ready : undefined;
        },
        { what: 'the gateway readiness to be 503' },
      );
      expect(draining.body.status).toBe('draining');
      // Still serving: a load balancer that has not yet noticed loses nothing.
      expect((await apiClient({}, gateway.url).GET('/health/live')).response.status).toBe(200);
      const serviceDraining = await eventually(
        async () => {
          const ready = await readiness(`${service.ops}/health/ready`);
          return ready.status === 503 ? ready : undefined;
        },
        { what: 'the service readiness to be 503' },
      );
      expect(serviceDraining.body.status).toBe('draining');
      expect(await gateway.exited).toBe(0);
      expect(await service.exited).toBe(0);
    } finally {
      await Promise.all([gateway.stop(), service.stop()]);
    }
  });
});
