import 'reflect-metadata';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import Fastify from 'fastify';
import { OversightController } from './oversight.controller';
import { quotaWindow, TaskQuota } from './task-quota';

describe('which requests reserve task quota with their authentication', () => {
  it('the routes that say so in their config (task creation does), no other and no unknown path', async () => {
    expect(Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, OversightController.prototype.createTask)).toEqual({ usesTaskQuota: true });
    const quota = Object.create(TaskQuota.prototype) as TaskQuota;
    const app = Fastify();
    const wanted: Record<string, boolean> = {};
    app.addHook('onRequest', async (request) => {
      wanted[request.url] = quota.wants(request);
    });
    app.post('/v1/tasks', { config: { usesTaskQuota: true } }, async () => ({}));
    app.post('/v1/signed-url', async () => ({}));
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    for (const url of ['/v1/tasks', '/v1/signed-url', '/v1/nowhere']) await fetch(`${base}${url}`, { method: 'POST' });
    await app.close();
    expect(wanted).toEqual({ '/v1/tasks': true, '/v1/signed-url': false, '/v1/nowhere': false });
  });
});

describe('task quota windows (UTC calendar)', () => {
  it('days end at the next UTC midnight', () => {
    expect(quotaWindow('day', new Date('2026-11-21T23:59:59.999Z'))).toEqual({
      id: 'd2026-11-21',
      endsAt: new Date('2026-11-22T00:00:00Z'),
    });
    expect(quotaWindow('day', new Date('2026-12-31T00:00:00Z'))).toEqual({ id: 'd2026-12-31', endsAt: new Date('2027-01-01T00:00:00Z') });
  });

  it('weeks are ISO weeks, Monday to Sunday', () => {
    // 2026-11-21 is a Saturday; 2026-11-23 a Monday.
    expect(quotaWindow('week', new Date('2026-11-21T12:00:00Z'))).toEqual({ id: 'w2026-11-16', endsAt: new Date('2026-11-23T00:00:00Z') });
    expect(quotaWindow('week', new Date('2026-11-22T23:00:00Z'))).toEqual({ id: 'w2026-11-16', endsAt: new Date('2026-11-23T00:00:00Z') });
    expect(quotaWindow('week', new Date('2026-11-23T00:00:00Z'))).toEqual({ id: 'w2026-11-23', endsAt: new Date('2026-11-30T00:00:00Z') });
  });

  it('months are calendar months', () => {
    expect(quotaWindow('month', new Date('2026-12-15T08:00:00Z'))).toEqual({ id: 'm2026-12', endsAt: new Date('2027-01-01T00:00:00Z') });
    expect(quotaWindow('month', new Date('2026-02-28T23:59:59Z'))).toEqual({ id: 'm2026-02', endsAt: new Date('2026-03-01T00:00:00Z') });
  });
});
