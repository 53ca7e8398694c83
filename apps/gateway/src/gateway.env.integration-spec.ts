import { spawn } from 'node:child_process';
import { GATEWAY_APP } from '@workline/contracts';
import { builtMainOf, testStack, callsOnly } from '@workline/testing';

// It starts gateways that stop at their settings: it calls no app (libs/testing/src/stack-turns.ts).
callsOnly([]);

/** Starts the built gateway with `env` and collects what it prints until it exits. */
function runGateway(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [builtMainOf(GATEWAY_APP)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

describe('gateway environment validation at boot', () => {
  it('stops with a message naming each bad variable and its rule, never the value', async () => {
    const { appEnv } = testStack();
    // 13 characters: a real-looking token that is merely too short must not reach the log.
    const shortToken = 'Zq7-token-9Xk';
    const shortSecretsKey = 'sk-too-short-4242';
    const { code, output } = await runGateway({
      ...appEnv,
      PORT: 'eighty',
      ADMIN_TOKEN: shortToken,
      SECRETS_KEY: shortSecretsKey,
      KAFKA_BROKERS: 'not a broker list',
    });
    expect(code).toBe(78);
    expect(output).toContain('Invalid environment:');
    expect(output).toMatch(/PORT: .*PORT must be an integer number/);
    expect(output).toMatch(/ADMIN_TOKEN: ADMIN_TOKEN must be at least 16 characters long/);
    expect(output).toMatch(/SECRETS_KEY: SECRETS_KEY must be at least 32 characters long/);
    expect(output).toMatch(/KAFKA_BROKERS: KAFKA_BROKERS must be a comma-separated list of host:port/);
    for (const value of [shortToken, shortSecretsKey, 'eighty', 'not a broker list']) expect(output).not.toContain(value);
  });

  it("checks the feature modules' settings before connecting to anything (Kafka unreachable here)", async () => {
    const { appEnv } = testStack();
    const { code, output } = await runGateway({ ...appEnv, KAFKA_BROKERS: '127.0.0.1:1', MEDIA_MAX_BYTES: 'lots' });
    expect(code).toBe(78);
    expect(output.split('\n')).toContain('  MEDIA_MAX_BYTES: MEDIA_MAX_BYTES must be an integer number');
  });

  it('requires ADMIN_TOKEN, and SECRETS_KEY in production', async () => {
    const { appEnv } = testStack();
    const { ADMIN_TOKEN: _omitted, ...withoutToken } = appEnv;
    const { code, output } = await runGateway({ ...withoutToken, NODE_ENV: 'production' });
    expect(code).toBe(78);
    expect(output).toMatch(/ADMIN_TOKEN: .*ADMIN_TOKEN must be set/);
    expect(output).toMatch(/SECRETS_KEY: .*SECRETS_KEY must be set in production/);
  });
});
