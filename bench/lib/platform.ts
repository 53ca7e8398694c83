/** The platform-API side of the benchmarks: a client account with lines, bot workers, and their baseline routes. */
import { randomUUID } from 'node:crypto';
import type { BaselineRoute } from './baseline';
import { ADMIN_TOKEN, call, expectStatus, type Headers } from './common';

export interface PlatformTenant {
  /** HTTP Basic of the account (the platform API's credential). */
  auth: Headers;
  /** The line of the big run that bots work. */
  lineId: string;
  /** The line of the small runs (kept apart so bots never lease their units). */
  smallLineId: string;
  /** Bearer tokens of the bot workers. */
  workers: Headers[];
}

export async function platformTenant(base: string, workerCount: number): Promise<PlatformTenant> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const account = await expectStatus(call(base, 'POST', '/admin/v1/accounts', admin, { name: 'Bench' }), 201, 'account');
  const line = await expectStatus(call(base, 'POST', `/admin/v1/accounts/${account.id}/lines`, admin, { name: 'Bench line' }), 201, 'line');
  const smallLine = await expectStatus(
    call(base, 'POST', `/admin/v1/accounts/${account.id}/lines`, admin, { name: 'Small runs' }),
    201,
    'line',
  );
  const workers: Headers[] = [];
  for (let i = 0; i < workerCount; i++) {
    const worker = await expectStatus(
      call(base, 'POST', '/admin/v1/workers', admin, { email: `bot${i}.${randomUUID()}@example.com`, name: `bot ${i}` }),
      201,
      'worker',
    );
    workers.push({ authorization: `Bearer ${worker.token}` });
  }
  return {
    auth: { authorization: `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}` },
    lineId: line.id,
    smallLineId: smallLine.id,
    workers,
  };
}

export const benchUnits = (count: number, prefix = 'unit') =>
  Array.from({ length: count }, (_, i) => ({ identifier: `${prefix}-${i}`, text: `benchmark unit ${i}`, meta: { index: i } }));

/**
 * The platform API's answers for the baseline server: run creation 201, `next` 200 with a unit (204 after
 * `units` of them, when given), complete 200 with the next unit (`next: null` after `units`); same statuses
 * and body shapes as the gateway's.
 */
export function platformBaselineRoutes(units?: number): BaselineRoute[] {
  const assignment = {
    assignment_id: `asgu_${randomUUID()}`,
    kind: 'unit',
    run_id: 'r',
    line_id: 'l',
    input: { identifier: 'unit-0', text: 'benchmark unit 0' },
    lease_expires_at: '2026-01-01T00:15:00Z',
  };
  return [
    {
      method: 'POST',
      url: '/v4/runs',
      status: 201,
      body: { id: randomUUID(), line_id: 'l', status: 'Processing', created_at: '2026-01-01T00:00:00Z' },
    },
    {
      method: 'POST',
      url: '/workforce/v1/assignments/next',
      status: 200,
      body: assignment,
      ...(units === undefined ? {} : { limit: units, then: { status: 204 } }),
    },
    // The next assignment rides along, as with `next` on complete; a bot that did not ask ignores it.
    {
      method: 'POST',
      url: '/workforce/v1/assignments/:id/complete',
      status: 200,
      body: { assignment_id: 'a', status: 'Completed', next: assignment },
      ...(units === undefined
        ? {}
        : { limit: units, then: { status: 200, body: { assignment_id: 'a', status: 'Completed', next: null } } }),
    },
  ];
}
