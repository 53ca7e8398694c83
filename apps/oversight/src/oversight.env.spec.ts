import 'reflect-metadata';
import type { DynamicModule } from '@nestjs/common';
import { FsBlobStore } from '@workline/blob-store';
import { loadEnv } from '@workline/config';
import { OVERSIGHT_OPTIONS, type OversightOptions } from '@workline/oversight';
import { providedValue } from '@workline/testing';
import { OversightEnv } from './oversight.env';
import { OversightModule } from './oversight.module';

const optionsOf = (module: DynamicModule) => providedValue<OversightOptions>(module, OVERSIGHT_OPTIONS)!;

describe('the oversight service’s settings', () => {
  it('defaults to a 30 min lease, media keys kept a day past their URL, a sweep every 10 min', () => {
    const env = loadEnv(OversightEnv, {});
    expect([env.TASK_LEASE_SECONDS, env.MEDIA_KEY_RETENTION_SECONDS, env.UPLOAD_SWEEP_INTERVAL_SECONDS]).toEqual([1800, 86_400, 600]);
  });

  it('refuses each setting outside its bounds, naming it and its rule', () => {
    expect(() => loadEnv(OversightEnv, { TASK_LEASE_SECONDS: '9' })).toThrow(
      'TASK_LEASE_SECONDS: TASK_LEASE_SECONDS must not be less than 10',
    );
    expect(() => loadEnv(OversightEnv, { TASK_LEASE_SECONDS: String(7 * 24 * 3600 + 1) })).toThrow(
      'TASK_LEASE_SECONDS must not be greater than 604800',
    );
    expect(() => loadEnv(OversightEnv, { MEDIA_KEY_RETENTION_SECONDS: '-1' })).toThrow(
      'MEDIA_KEY_RETENTION_SECONDS must not be less than 0',
    );
    expect(() => loadEnv(OversightEnv, { UPLOAD_SWEEP_INTERVAL_SECONDS: '86401' })).toThrow(
      'UPLOAD_SWEEP_INTERVAL_SECONDS must not be greater than 86400',
    );
    expect(() => loadEnv(OversightEnv, { PUBLIC_URL: 'ftp://media' })).toThrow('PUBLIC_URL: PUBLIC_URL must be an http(s) URL');
    // No retention at all is a choice: a media_key is then usable only while its upload URL is.
    expect(loadEnv(OversightEnv, { MEDIA_KEY_RETENTION_SECONDS: '0' }).MEDIA_KEY_RETENTION_SECONDS).toBe(0);
  });

  it('gives the oversight domain the gateway’s public URL (media URLs point there) and its own settings', () => {
    const env = loadEnv(OversightEnv, {
      PUBLIC_URL: 'https://api.example.com/',
      SECRETS_KEY: 'a-secrets-key-of-at-least-thirty-two-characters',
      TASK_LEASE_SECONDS: '120',
      MEDIA_KEY_RETENTION_SECONDS: '3600',
      UPLOAD_SWEEP_INTERVAL_SECONDS: '60',
    });
    const blobs = new FsBlobStore('.cache/blobs');
    expect(optionsOf(OversightModule.register(env, blobs))).toEqual({
      publicUrl: 'https://api.example.com',
      secretsKey: 'a-secrets-key-of-at-least-thirty-two-characters',
      blobs,
      leaseSeconds: 120,
      mediaKeyRetentionSeconds: 3600,
      uploadSweepSeconds: 60,
    });
    // Without PUBLIC_URL, the gateway's own loopback address on PORT.
    expect(optionsOf(OversightModule.register(loadEnv(OversightEnv, { PORT: '3100' }), blobs)).publicUrl).toBe('http://127.0.0.1:3100');
  });
});
