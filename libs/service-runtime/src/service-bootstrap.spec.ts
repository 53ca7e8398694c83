import { BaseEnv, loadEnv } from '@workline/config';
import { ALL_SERVICES, ServiceName } from '@workline/contracts';
import { defaultHttpPort, kafkaSettingsFrom, logLevelsUpTo } from './service-bootstrap';

describe('a service’s bootstrap pieces', () => {
  it('logs the levels up to LOG_LEVEL, most severe first', () => {
    expect(logLevelsUpTo('error')).toEqual(['error']);
    expect(logLevelsUpTo('log')).toEqual(['error', 'warn', 'log']);
    expect(logLevelsUpTo('verbose')).toEqual(['error', 'warn', 'log', 'debug', 'verbose']);
  });

  it('takes its Kafka settings from the environment, named after the service', () => {
    const env = loadEnv(BaseEnv, {
      KAFKA_BROKERS: 'kafka-1:9092,kafka-2:9092',
      INSTANCE_ID: 'oversight-2',
      KAFKA_SESSION_TIMEOUT_MS: '10000',
    });
    expect(kafkaSettingsFrom(env, ServiceName.Oversight)).toEqual({
      brokers: ['kafka-1:9092', 'kafka-2:9092'],
      app: 'oversight',
      instanceId: 'oversight-2',
      sessionTimeoutMs: 10_000,
    });
  });

  it('serves the operational endpoints on the ports after the gateway’s default, one per service in ServiceName order', () => {
    expect(ALL_SERVICES.map(defaultHttpPort)).toEqual([3001, 3002, 3003, 3004]);
    expect(defaultHttpPort(ServiceName.WebhookDispatcher)).toBe(3004);
  });
});
