import { ALL_APPS } from '@workline/contracts';
import { adminClient, apiClient, http, metricSample, runsAloneOnStack } from '@workline/testing';

const anonymous = apiClient();
/** The gateway's Prometheus text (GET /metrics, typed client): the answer, its body as text. */
const metrics = () => anonymous.GET('/metrics', { parseAs: 'text' });
/** The same, its text only. */
const metricsText = async () => (await metrics()).data ?? '';

/** The value of one sample of the Prometheus text, 0 when the series does not exist yet. */
const sample = (text: string, name: string, labels: Record<string, string>): number => metricSample(text, name, labels) ?? 0;

describe('gateway liveness, readiness and Prometheus metrics', () => {
  runsAloneOnStack('compares gateway request counters before and after its own requests');
  it('answers liveness without looking at dependencies, and readiness with the /health checks', async () => {
    const live = await anonymous.GET('/health/live');
    expect(live.response.status).toBe(200);
    expect(live.data).toEqual({ status: 'ok' });
    const ready = await adminClient().GET('/health/ready');
    expect(ready.response.status).toBe(200);
    expect(ready.data?.status).toBe('ok');
    expect(Object.keys(ready.data?.components ?? {}).sort()).toEqual([...ALL_APPS, 'redis'].sort());
  });

  it('counts requests by method, route pattern and status, with a latency histogram', async () => {
    const labels = { method: 'GET', route: '/v4/runs/:id', status: '401' };
    const before = await metrics();
    expect(before.response.status).toBe(200);
    expect(before.response.headers.get('content-type')).toMatch(/^text\/plain/);
    const countBefore = sample(before.data ?? '', 'http_requests_total', labels);
    for (const id of ['run-a', 'run-b'])
      expect((await anonymous.GET('/v4/runs/{id}', { params: { path: { id } } })).response.status).toBe(401);
    const after = await metricsText();
    // Labelled by the route pattern, not the raw path: two ids, one series.
    expect(sample(after, 'http_requests_total', labels)).toBe(countBefore + 2);
    expect(after).not.toContain('run-a');
    expect(sample(after, 'http_request_duration_seconds_count', labels)).toBe(countBefore + 2);
    expect(sample(after, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(countBefore + 2);
    expect(after).toMatch(/^process_cpu_seconds_total /m);
    // The database pool's metrics, as on every app (docs/operations.md): authentication reads identities there.
    expect(metricSample(after, 'db_statements_total', {})).toEqual(expect.any(Number));
    expect(metricSample(after, 'db_pool_clients', { state: 'waiting' })).toBe(0);
    // Its Redis round trips (docs/operations.md): the identity epoch and the rate limits travel in them.
    expect(metricSample(after, 'redis_round_trips_total', {})).toBeGreaterThan(0);
  });

  it('labels requests the router does not know as unrouted, so raw paths never become series', async () => {
    const labels = { method: 'GET', route: 'unrouted', status: '404' };
    const before = sample(await metricsText(), 'http_requests_total', labels);
    // A path of no operation: raw http().
    expect((await http('GET', '/v1/not-a-route-4711')).status).toBe(404);
    const after = await metricsText();
    expect(sample(after, 'http_requests_total', labels)).toBe(before + 1);
    expect(after).not.toContain('not-a-route-4711');
  });
});
