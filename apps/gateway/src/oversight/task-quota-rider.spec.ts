import 'reflect-metadata';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import Fastify from 'fastify';
import { OversightController } from './oversight.controller';
import { TaskQuotaRider } from './task-quota-rider';

describe('which requests reserve task quota with their authentication', () => {
  it('the routes that say so in their config (task creation does), no other and no unknown path', async () => {
    expect(Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, OversightController.prototype.createTask)).toEqual({ usesTaskQuota: true });
    const quota = Object.create(TaskQuotaRider.prototype) as TaskQuotaRider;
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
