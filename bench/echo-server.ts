/**
 * The echo service of the benchmarks: a KafkaTransport (libs/messaging) in its own process answering one
 * request-reply pattern with the request's data, touching no database. Request-reply through the
 * transport and nothing else, for the service rows to be set against; it reports its CPU time on demand,
 * so a bench can give the transport's CPU per request. Started through `startEchoServer` (bench/lib/echo.ts).
 */
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { KafkaTransport } from '@workline/messaging';
import { randomUUID } from 'node:crypto';
import { ECHO_PATTERN } from './lib/echo';

@Controller()
class EchoController {
  @MessagePattern(ECHO_PATTERN)
  echo(@Payload() data: unknown): unknown {
    return data;
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

process.once('message', async ({ brokers, topic }: { brokers: string[]; topic: string }) => {
  const transport = new KafkaTransport({
    settings: { brokers, app: `bench-echo-${randomUUID().slice(0, 8)}`, instanceId: 'echo' },
    rpcTopic: topic,
  });
  const app = await NestFactory.createMicroservice(EchoModule, { strategy: transport, logger: ['error', 'warn'] });
  await app.listen();
  while (transport.consumerProblem()) await new Promise((r) => setTimeout(r, 100));
  process.on('message', (message: unknown) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
  });
  process.once('disconnect', () => void app.close().then(() => process.exit(0)));
  process.send!({ ready: true });
});
