import 'reflect-metadata';
import { EnvError, loadEnv } from '@workline/config';
import { DEFAULT_LEASE_MS, MIN_LEASE_MS } from '@workline/webhook-dispatcher';
import { WebhookDispatcherEnv } from './webhook-dispatcher.env';

const rejection = (source: NodeJS.ProcessEnv): string => {
  try {
    loadEnv(WebhookDispatcherEnv, source);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as Error).message;
  }
  throw new Error('the settings were accepted');
};

describe('WebhookDispatcherEnv: WEBHOOK_LEASE_MS', () => {
  it('defaults to 30 s and takes any length from two attempt timeouts and the margin (15 s) up', () => {
    expect(loadEnv(WebhookDispatcherEnv, {}).WEBHOOK_LEASE_MS).toBe(DEFAULT_LEASE_MS);
    expect(DEFAULT_LEASE_MS).toBe(30_000);
    expect(MIN_LEASE_MS).toBe(15_000);
    expect(loadEnv(WebhookDispatcherEnv, { WEBHOOK_LEASE_MS: '15000' }).WEBHOOK_LEASE_MS).toBe(15_000);
  });

  it('refuses a lease too short for an attempt and its outcome, too long, or not a number, saying which', () => {
    expect(rejection({ WEBHOOK_LEASE_MS: '14999' })).toContain(
      "WEBHOOK_LEASE_MS: WEBHOOK_LEASE_MS must be at least 15000 (two attempt timeouts and the outcome's margin)",
    );
    expect(rejection({ WEBHOOK_LEASE_MS: '600001' })).toContain('WEBHOOK_LEASE_MS must be at most 600000 (ten minutes)');
    expect(rejection({ WEBHOOK_LEASE_MS: '30s' })).toContain('WEBHOOK_LEASE_MS must be an integer number of milliseconds');
  });
});
