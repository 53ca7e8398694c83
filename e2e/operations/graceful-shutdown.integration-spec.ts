import { PrismaService } from '@workline/db';
import {
  adminCreate,
  type AppInstance,
  createPlatformAccount,
  createWorker,
  eventually,
  http,
  startAppInstance,
  startGateway,
  testStack,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';

const SERVICES = ['performance', 'platform-runs', 'oversight', 'webhook-dispatcher'];

type Gateway = AppInstance & { url: string };

/** GET a readiness URL; 0 when nothing answers (the process is gone or not listening yet). */
async function readiness(url: string): Promise<{ status: number; body: { status?: string } }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: (await response.json()) as { status?: string } };
  } catch {
    return { status: 0, body: {} };
  }
}

const waitReady = (url: string, what: string) =>
  eventually(async () => (await readiness(url)).status === 200, { what: `${what} to be ready`, timeoutMs: 120_000, intervalMs: 250 });

/** Starts a service instance and waits for its readiness (consumer in its group, database reachable). */
async function startService(app: string, extraEnv: Record<string, string> = {}): Promise<AppInstance & { ops: string }> {
  const instance = startAppInstance(app, extraEnv, `${app}-shutdown-${randomUUID().slice(0, 8)}`);
  const ops = await instance.opsUrl();
  await waitReady(`${ops}/health/ready`, `${app} (${ops})`);
  return { ...instance, ops };
}

describe('graceful shutdown (SIGTERM)', () => {
  it('turns readiness to 503 at once, keeps answering while draining, then exits 0 (gateway and a service)', async () => {
    const gateway = await startGateway({ SHUTDOWN_DELAY_MS: '8000' });
    const service = await startService('performance', { SHUTDOWN_DELAY_MS: '8000' });
    try {
      gateway.process.kill('SIGTERM');
      service.process.kill('SIGTERM');
      const draining = await eventually(
        async () => {
          const ready = await readiness(`${gateway.url}/health/ready`);
          return ready.status === 503 ? ready : undefined;
        },
        { what: 'the gateway readiness to be 503' },
      );
      expect(draining.body.status).toBe('draining');
      // Still serving: a load balancer that has not yet noticed loses nothing.
      expect((await http('GET', `${gateway.url}/health/live`)).status).toBe(200);
      const serviceDraining = await eventually(
        async () => {
          const ready = await readiness(`${service.ops}/health/ready`);
          return ready.status === 503 ? ready : undefined;
        },
        { what: 'the service readiness to be 503' },
      );
      expect(serviceDraining.body.status).toBe('draining');
      expect(await gateway.exited).toBe(0);
      expect(await service.exited).toBe(0);
    } finally {
      await Promise.all([gateway.stop(), service.stop()]);
    }
  });

  /**
   * A rolling restart under load: two extra gateways and two extra instances of every service (beside the
   * stack's own), and a stream of quality submissions, run creations and unit completions spread over both
   * gateways. Every instance is stopped with SIGTERM and started again in turn, one at a time, each back to
   * ready before the next goes. Afterwards every request answered 2xx is stored exactly once.
   */
  it('loses nothing and refuses nothing (no 5xx, no connection error) across a rolling restart of every instance', async () => {
    const stack = testStack();
    // Its audit reads the services' tables on purpose, as the fault suites' do: stored rows are the ground truth
    // for "every 2xx is stored exactly once".
    const prisma = new PrismaService(stack.databaseUrl);
    await prisma.$connect();
    // Workstream for quality submissions.
    const account = await adminCreate<{ id: string }>('/accounts', { name: `Rolling ${randomUUID().slice(0, 6)}` });
    const ws = (
      await adminCreate<{ id: string }>('/workstreams', {
        account_id: account.id,
        name: 'Rolling',
        use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
        qc_sample_rate: 0,
      })
    ).id;
    const key = (await adminCreate<{ key: string }>(`/workstreams/${ws}/api-keys`, {})).key;
    // A line with units to complete.
    const platform = await createPlatformAccount('Rolling');
    const worker = await createWorker();
    const seeded = await http<{ id: string }>('POST', '/v4/runs', {
      headers: platform.auth,
      body: { line_id: platform.lineId, units: Array.from({ length: 300 }, (_, i) => ({ identifier: `u${i}` })) },
    });
    expect(seeded.status).toBe(201);

    const gateways: Gateway[] = [await startGateway({ SHUTDOWN_DELAY_MS: '2000' }), await startGateway({ SHUTDOWN_DELAY_MS: '2000' })];
    const services: { app: string; instance: AppInstance & { ops: string } }[] = [];
    for (const app of SERVICES) for (let i = 0; i < 2; i++) services.push({ app, instance: await startService(app) });

    const accepted = { quality: [] as string[], runs: [] as string[], completions: [] as string[] };
    const refused = { quality: 0, runs: 0, completions: 0, unreachable: 0 };
    let stop = false;
    let turn = 0;
    // A load balancer's view: a gateway is in rotation while its readiness answers 200 (asked every 200 ms).
    // Each gateway is probed on its own, so a slow answer from one never delays noticing another one draining;
    // a gateway taken out for its restart never comes back (a late 200 from before its SIGTERM is ignored).
    const inRotation = new Set<string>(gateways.map((g) => g.url));
    const probing = new Set<string>();
    const retired = new Set<string>();
    const balancer = (async () => {
      while (!stop) {
        for (const { url } of gateways) {
          if (probing.has(url) || retired.has(url)) continue;
          probing.add(url);
          void readiness(`${url}/health/ready`)
            .then(({ status }) => (status === 200 && !retired.has(url) ? inRotation.add(url) : inRotation.delete(url)))
            .finally(() => probing.delete(url));
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const pick = () => {
      const urls = inRotation.size ? [...inRotation] : gateways.map((g) => g.url).filter((url) => !retired.has(url));
      return urls[turn++ % urls.length];
    };

    /** Each connection error a client saw, by code (kept for the log line: which kind it was says why). */
    const connectionErrors: string[] = [];
    const codeOf = (error: unknown) =>
      String((error as { cause?: { code?: string } })?.cause?.code ?? (error instanceof Error ? error.message : error));
    // A refused connection never reached a server: like any HTTP client or balancer, try once more on a fresh
    // pick. Anything else (a reset, a request cut mid-way) is a failure of the graceful stop.
    const send = async (path: string, headers: Record<string, string>, body: unknown) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await http<Record<string, unknown>>('POST', `${pick()}${path}`, { headers, body });
        } catch (error) {
          const code = codeOf(error);
          connectionErrors.push(code);
          if (code === 'ECONNREFUSED' && attempt === 1) continue;
          refused.unreachable++;
          return undefined;
        }
      }
    };
    const client = async (id: number) => {
      for (let n = 0; !stop; n++) {
        const kind = (id + n) % 3;
        if (kind === 0) {
          const uniqueId = `roll-${id}-${n}-${randomUUID().slice(0, 8)}`;
          const result = await send(
            `/v1/workstreams/${ws}/task_reviewed`,
            { 'x-api-key': key },
            {
              workstream_id: ws,
              use_case_id: 'uc',
              task_definition_id: 'td',
              worker_id: 'w@example.com',
              review_completed_at: '2024-05-01T12:00:00Z',
              review_score: 0.9,
              unique_id: uniqueId,
            },
          );
          if (result && result.status >= 200 && result.status < 300) accepted.quality.push(uniqueId);
          else if (result) refused.quality++;
        } else if (kind === 1) {
          const result = await send('/v4/runs', platform.auth, { line_id: platform.lineId, units: [{ identifier: `r-${id}-${n}` }] });
          if (result && result.status === 201) accepted.runs.push(String(result.body.id));
          else if (result) refused.runs++;
        } else {
          const next = await send('/workforce/v1/assignments/next', worker, { kind: 'unit', line_id: platform.lineId });
          if (!next || next.status !== 200) continue;
          const assignment = String(next.body.assignment_id);
          const result = await send(`/workforce/v1/assignments/${assignment}/complete`, worker, { output: { by: assignment } });
          if (result && result.status === 200) accepted.completions.push(assignment);
          else if (result) refused.completions++;
        }
      }
    };
    const clients = Array.from({ length: 4 }, (_, i) => client(i));

    let restarts = 0;
    try {
      // Let the stream get going, then restart every instance in turn.
      await eventually(() => accepted.quality.length + accepted.runs.length + accepted.completions.length >= 20 || undefined, {
        what: 'the stream to start',
        timeoutMs: 60_000,
      });
      for (let i = 0; i < services.length; i++) {
        const { app, instance } = services[i];
        await instance.stop();
        expect({ app, exit: await instance.exited }).toEqual({ app, exit: 0 });
        services[i] = { app, instance: await startService(app) };
        restarts++;
      }
      for (let i = 0; i < gateways.length; i++) {
        const old = gateways[i];
        await old.stop();
        retired.add(old.url);
        inRotation.delete(old.url);
        expect({ app: 'gateway', exit: await old.exited }).toEqual({ app: 'gateway', exit: 0 });
        gateways[i] = await startGateway({ SHUTDOWN_DELAY_MS: '2000' });
        restarts++;
      }
    } finally {
      stop = true;
      await Promise.all([...clients, balancer]);
      await Promise.all([...gateways.map((g) => g.stop()), ...services.map((s) => s.instance.stop())]);
    }

    // Every 2xx is stored exactly once.
    const qualityRows = await prisma.$queryRaw<{ unique_id: string; n: number }[]>`
      select unique_id, count(*)::int as n from performance_quality_record where workstream_id = ${ws} group by unique_id`;
    const quality = new Map(qualityRows.map((r) => [r.unique_id, r.n]));
    const missingQuality = accepted.quality.filter((id) => quality.get(id) !== 1);
    const runRows = await prisma.$queryRaw<{ id: string; units: number }[]>`
      select r.id, (select count(*)::int from platform_unit u where u.run_id = r.id) as units from platform_run r where r.id = any(${accepted.runs})`;
    const runs = new Map(runRows.map((r) => [r.id, r.units]));
    const missingRuns = accepted.runs.filter((id) => runs.get(id) !== 1);
    const assignmentIds = accepted.completions;
    const done = await prisma.$queryRaw<{ id: string; outcome: string | null; status: string; output: unknown }[]>`
      select a.id, a.outcome, u.status, u.output from platform_unit_assignment a join platform_unit u on u.run_id = a.run_id and u.seq = a.seq
      where a.id = any(${assignmentIds})`;
    const completions = new Map(done.map((d) => [d.id, d]));
    const missingCompletions = assignmentIds.filter((id) => {
      const row = completions.get(id);
      return !row || row.outcome !== 'completed' || row.status !== 'Completed' || (row.output as { by?: string } | null)?.by !== id;
    });
    // A completed unit is completed by exactly one assignment.
    const [{ doubled }] = await prisma.$queryRaw<{ doubled: number }[]>`
      select count(*)::int as doubled from (select a.run_id, a.seq from platform_unit_assignment a
        where a.id = any(${assignmentIds}) and a.outcome = 'completed' group by a.run_id, a.seq having count(*) > 1) d`;
    await prisma.$disconnect();

    console.log(
      `rolling restart: ${restarts} instances restarted one at a time (2 gateways, 2 of each of ${SERVICES.length} services); ` +
        `answered 2xx and checked stored exactly once: ${accepted.quality.length} quality submissions, ${accepted.runs.length} run creations, ` +
        `${accepted.completions.length} unit completions; not 2xx (not counted): ${refused.quality} quality, ${refused.runs} runs, ` +
        `${refused.completions} completions, ${refused.unreachable} connection errors; connection errors seen (a refused one is tried again): ${connectionErrors.join(', ') || 'none'}`,
    );
    expect(restarts).toBe(SERVICES.length * 2 + 2);
    expect(accepted.quality.length).toBeGreaterThan(0);
    expect(accepted.runs.length).toBeGreaterThan(0);
    expect(accepted.completions.length).toBeGreaterThan(0);
    expect({ missingQuality, missingRuns, missingCompletions, doubled }).toEqual({
      missingQuality: [],
      missingRuns: [],
      missingCompletions: [],
      doubled: 0,
    });
    // Graceful means graceful: behind a readiness-driven balancer no client saw a 5xx or a connection error.
    expect(refused).toEqual({ quality: 0, runs: 0, completions: 0, unreachable: 0 });
  }, 900_000);
});
