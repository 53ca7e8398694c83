import { adminClient, ok, testStack, takesTurnOn } from '@workline/testing';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function runDemo(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'tools', 'bootstrap.js'), 'demo', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** `npm run demo --auto` (tools/demo.ts) against the test stack. */
describe('npm run demo', () => {
  // The demo's bot works the oversight task queue every workstream shares.
  takesTurnOn('oversight task queue');
  it('--auto provisions everything, finishes every unit and task, and receives every callback', async () => {
    const { gatewayUrl, adminToken } = testStack();
    const { code, output } = await runDemo(['--auto'], { WORKLINE_URL: gatewayUrl, ADMIN_TOKEN: adminToken });
    expect(output).toContain(`Console:            ${gatewayUrl}/console`);
    expect(output).toMatch(/Worker token: +\S{16,}/);
    const workstreamId = /Workstream: +(\S+) /.exec(output)?.[1];
    // The report charts have data: the demo submitted a quality review and a throughput record a day.
    const report = await ok(
      adminClient().GET('/admin/v1/workstreams/{workstream_id}/reports/quality', {
        params: { path: { workstream_id: workstreamId ?? '' }, query: { group_by: 'day' } },
      }),
      200,
    );
    expect(report.groups.map((g) => g.count)).toEqual(Array(7).fill(2));
    expect(output).toMatch(/Run \S+: Processed, 3\/3 units done; callbacks received: 3\/3/);
    expect(output).toContain('Demo complete: every unit done and every callback received.');
    expect(output.match(/receiver <- POST \/task: task\.result_available \(signed\)/g)).toHaveLength(2);
    expect(code).toBe(0);
  }, 120_000);

  it('says what is wrong when the admin token is refused, and exits 1', async () => {
    const { code, output } = await runDemo(['--auto'], { WORKLINE_URL: testStack().gatewayUrl, ADMIN_TOKEN: 'not-the-admin-token-at-all' });
    expect(output).toMatch(/demo failed: POST \/admin\/v1\/accounts answered 401/);
    expect(code).toBe(1);
  });

  it('says where it looked when no gateway answers, and exits 1', async () => {
    const { code, output } = await runDemo([], { WORKLINE_URL: 'http://127.0.0.1:9', ADMIN_TOKEN: 'x'.repeat(20) });
    expect(output).toContain('demo failed: Workline is not answering on http://127.0.0.1:9');
    expect(code).toBe(1);
  });
});
