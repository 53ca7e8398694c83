import { callsOnly, createPlatformAccount, http, listedRuns, testDnsName } from '@workline/testing';

// It calls the gateway and the platform-runs service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'platform-runs']);

const REFUSED = [
  ['http://10.0.0.5/hook', 'callback_url must point to a public address: 10.0.0.5 is a private address'],
  [`http://${testDnsName('169.254.169.254')}/latest/meta-data/`, 'callback_url must point to a public address: '],
] as const;

/**
 * platform-runs checks a run's callback_url where it creates the run (the SSRF guard, e2e/security/ssrf):
 * a refused callback must create nothing, and must not fail the runs created beside it in the same batch.
 * The account's runs are read as support reads them (GET /admin/v1/runs).
 */
describe('runs refused for their callback_url (v4 and v3, real gateway, Kafka and PostgreSQL)', () => {
  it('create no run, while the runs sent at the same moment are created', async () => {
    const account = await createPlatformAccount('Refused callbacks');
    const v4 = (callbackUrl?: string) =>
      http<{ id: string; message: string }>('POST', '/v4/runs', {
        headers: account.auth,
        body: { line_id: account.lineId, units: [{ n: 1 }], ...(callbackUrl ? { callback_url: callbackUrl } : {}) },
      });
    const v3 = (callbackUrl?: string) =>
      http<{ task_id: string; error: string; detail?: string }>('POST', '/v3/tasks', {
        headers: account.auth,
        body: { template_id: account.lineId, resources: [{ n: 1 }], ...(callbackUrl ? { callback_url: callbackUrl } : {}) },
      });
    const [refusedV4, refusedV3, createdV4, createdV3] = await Promise.all([
      Promise.all(REFUSED.map(([url]) => v4(url))),
      Promise.all(REFUSED.map(([url]) => v3(url))),
      Promise.all([v4(), v4()]),
      v3(),
    ]);
    for (const [i, [, reason]] of REFUSED.entries()) {
      expect(refusedV4[i].status).toBe(422);
      expect(refusedV4[i].body.message).toContain(reason);
      expect(refusedV3[i].status).toBe(400);
      expect(refusedV3[i].body).toMatchObject({ status: 102, error: 'Data is invalid', detail: expect.stringContaining(reason) });
    }
    expect([...createdV4.map((r) => r.status), createdV3.status]).toEqual([201, 201, 200]);

    const runs = await listedRuns({ account_id: account.id });
    expect(runs.map((run) => run.id).sort()).toEqual([...createdV4.map((r) => r.body.id), createdV3.body.task_id].sort());
  });
});
