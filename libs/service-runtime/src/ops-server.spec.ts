import { Counter, Registry } from 'prom-client';
import { OpsServer, readiness, type ReadinessCheck } from './ops-server';

const up = (name: string): ReadinessCheck => ({ name, check: async () => undefined });
const down = (name: string, problem: string): ReadinessCheck => ({ name, check: async () => problem });

describe('readiness', () => {
  it('is 200 with every component up', async () => {
    expect(await readiness([up('kafka'), up('database')], false)).toEqual({
      status: 200,
      body: { status: 'ok', components: { kafka: { status: 'up' }, database: { status: 'up' } } },
    });
  });

  it('is 503 naming each component down and what is wrong, a check that throws counting as down', async () => {
    const failing: ReadinessCheck = {
      name: 'database',
      check: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
    };
    expect(await readiness([down('kafka', 'consumer not in its group'), failing, up('redis')], false)).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        message: 'Down: kafka: consumer not in its group; database: connect ECONNREFUSED 127.0.0.1:5432',
        components: {
          kafka: { status: 'down', detail: 'consumer not in its group' },
          database: { status: 'down', detail: 'connect ECONNREFUSED 127.0.0.1:5432' },
          redis: { status: 'up' },
        },
      },
    });
  });

  it('is 503 draining once shutdown began, without running the checks', async () => {
    const check = jest.fn(async () => undefined);
    expect(await readiness([{ name: 'kafka', check }], true)).toEqual({
      status: 503,
      body: { status: 'draining', message: 'Shutting down: not taking new work' },
    });
    expect(check).not.toHaveBeenCalled();
  });
});

describe('OpsServer (on loopback)', () => {
  const registry = new Registry();
  const handled = new Counter({ name: 'ops_probe_handled_total', help: 'Probe counter', registers: [registry] });
  let healthy = true;
  const server = new OpsServer(registry, [{ name: 'database', check: async () => (healthy ? undefined : 'no connection') }]);
  let base: string;

  beforeAll(async () => {
    handled.inc(3);
    base = `http://127.0.0.1:${await server.listen(0, '127.0.0.1')}`;
  });
  afterAll(() => server.close());

  const get = async (path: string, method = 'GET') => {
    const response = await fetch(`${base}${path}`, { method });
    return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
  };

  it('answers liveness whatever the checks say, and readiness (also at /health) with them', async () => {
    healthy = false;
    expect(await get('/health/live')).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: '{"status":"ok"}' });
    expect((await get('/health/ready')).status).toBe(503);
    healthy = true;
    expect(JSON.parse((await get('/health?verbose=1')).body)).toEqual({ status: 'ok', components: { database: { status: 'up' } } });
  });

  it('serves the registry’s metrics as Prometheus text', async () => {
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toBe(registry.contentType);
    expect(metrics.body).toContain('ops_probe_handled_total 3');
  });

  it('answers only GET and HEAD, and 404 elsewhere', async () => {
    expect(await get('/health/live', 'POST')).toEqual({
      status: 405,
      type: 'application/json; charset=utf-8',
      body: '{"message":"Only GET"}',
    });
    expect((await get('/health/live', 'HEAD')).status).toBe(200);
    expect(await get('/nowhere')).toEqual({
      status: 404,
      type: 'application/json; charset=utf-8',
      body: '{"message":"No route /nowhere"}',
    });
  });

  it('turns readiness to 503 draining when shutdown begins, liveness staying 200', async () => {
    server.draining = true;
    try {
      expect(JSON.parse((await get('/health/ready')).body)).toEqual({ status: 'draining', message: 'Shutting down: not taking new work' });
      expect((await get('/health/live')).status).toBe(200);
    } finally {
      server.draining = false;
    }
  });
});
