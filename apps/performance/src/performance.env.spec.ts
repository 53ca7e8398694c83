import 'reflect-metadata';
import { FsBlobStore } from '@workline/blob-store';
import { loadEnv } from '@workline/config';
import { BLOB_STORE, INSTANCE_ID, UPLOAD_SWEEP_SECONDS } from '@workline/performance';
import { providedValue } from '@workline/testing';
import { PerformanceEnv } from './performance.env';
import { PerformanceModule } from './performance.module';

describe('the performance service’s settings', () => {
  it('sweeps finished uploads’ files every 10 min unless told, within 1 s to a day', () => {
    expect(loadEnv(PerformanceEnv, {}).UPLOAD_SWEEP_INTERVAL_SECONDS).toBe(600);
    expect(() => loadEnv(PerformanceEnv, { UPLOAD_SWEEP_INTERVAL_SECONDS: '0' })).toThrow(
      'UPLOAD_SWEEP_INTERVAL_SECONDS: UPLOAD_SWEEP_INTERVAL_SECONDS must not be less than 1',
    );
    expect(() => loadEnv(PerformanceEnv, { UPLOAD_SWEEP_INTERVAL_SECONDS: '86401' })).toThrow(
      'UPLOAD_SWEEP_INTERVAL_SECONDS must not be greater than 86400',
    );
    expect(() => loadEnv(PerformanceEnv, { UPLOAD_SWEEP_INTERVAL_SECONDS: 'hourly' })).toThrow(
      'UPLOAD_SWEEP_INTERVAL_SECONDS: UPLOAD_SWEEP_INTERVAL_SECONDS must be an integer number',
    );
  });

  it('gives the performance domain the uploads’ blob directory, this instance’s id and the sweep interval', () => {
    const env = loadEnv(PerformanceEnv, {
      BLOB_DIR: '/var/lib/workline/blobs',
      INSTANCE_ID: 'performance-7',
      UPLOAD_SWEEP_INTERVAL_SECONDS: '30',
    });
    const module = PerformanceModule.register(env);
    expect(providedValue(module, BLOB_STORE)).toStrictEqual(new FsBlobStore('/var/lib/workline/blobs'));
    expect(providedValue(module, INSTANCE_ID)).toBe('performance-7');
    expect(providedValue(module, UPLOAD_SWEEP_SECONDS)).toBe(30);
  });
});
