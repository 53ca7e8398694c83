/** Settings every test stack gives its apps (the integration stack and the fault suite's). */
export const testAppEnv: Record<string, string> = {
  LOG_LEVEL: 'warn',
  KAFKAJS_NO_PARTITIONER_WARNING: '1',
  // Test receivers listen on loopback. The integration stack narrows this to 127.0.0.1 (jest-global-setup.ts).
  WEBHOOK_ALLOW_PRIVATE: '1',
  // Every test request comes from 127.0.0.1: the failed-authentication limit is tested on its own
  // gateway instance (identity-lifecycle.integration-spec.ts), not on the shared one.
  AUTH_FAILURE_LIMIT: '1000000',
  // High enough never to refuse (the suite shares a few credentials) while every request still passes the limiter; it is tested on its own
  // gateway (rate-limit.integration-spec.ts).
  RATE_LIMIT_V1_PER_MINUTE: '1000000',
  RATE_LIMIT_V4_PER_MINUTE: '1000000',
  RATE_LIMIT_V3_PER_MINUTE: '1000000',
  RATE_LIMIT_WORK_PER_MINUTE: '1000000',
  RATE_LIMIT_ADMIN_PER_MINUTE: '1000000',
  WEBHOOK_POLL_MS: '100',
  // The upload sweeps (performance, oversight) run every second, so their tests wait seconds, not minutes.
  UPLOAD_SWEEP_INTERVAL_SECONDS: '1',
  // A crashed or stopped instance's partitions move on after 10 s instead of 30 s (heartbeats every 1 s):
  // the suites that kill or restart apps wait that much less. Production keeps the 30 s default.
  KAFKA_SESSION_TIMEOUT_MS: '10000',
};
