import { blockedAddressReason, parseAddressRange } from '@workline/callback-url';
import { BaseEnv, loadEnv } from '@workline/config';
import type { DeliveryDetailView, DeliveryPage, DeliveryView, TaskPage } from '@workline/contracts';
import {
  adminHeaders,
  completeUnit,
  createImageTask,
  createOversightTenant,
  createPlatformAccount,
  createWorker,
  eventually,
  freePort,
  http,
  listedRuns,
  LoopbackReceiver,
  nextUnit,
  type OversightTenant,
  type PlatformAccount,
  testDnsName,
  testStack,
  takesTurnOn,
} from '@workline/testing';

const PUBLIC = '93.184.216.34';
const REFUSED_PREFIX = 'callback_url must point to a public address: ';

/**
 * The SSRF guard end to end. The test stack runs with the guard on (WEBHOOK_ALLOW_PRIVATE=127.0.0.1: only
 * the receivers' own address is let through) and resolves callback hosts with its DNS server
 * (WEBHOOK_DNS_SERVERS, tools/stack/test-dns.ts), whose names say what they resolve to. Refused at creation:
 * oversight task callbacks (the gateway checks), platform run callbacks of v4 and v3 (platform-runs checks).
 * Refused at delivery: a name that resolved to a public address at creation and to a non-public one when
 * the dispatcher is about to connect (DNS rebinding): loopback, while a real receiver listens there, and
 * each other kind (private, metadata, IPv4-mapped, 6to4, NAT64), where nothing listens, so an attempt the
 * guard let through would end in a timeout or an unreachable network, never in the refusal.
 */
describe('SSRF guard: callback URLs to non-public addresses are refused, at creation and at delivery', () => {
  takesTurnOn('oversight task queue');
  let tenant: OversightTenant;
  let platform: PlatformAccount;
  let mediaKey: string;

  /** Every non-public kind, as an IP literal (the message names it) and through a name (it does not). */
  const LITERALS: [url: string, message: string][] = [
    ['http://10.0.0.5/hook', '10.0.0.5 is a private address'],
    ['http://192.168.1.20:8080/hook', '192.168.1.20 is a private address'],
    ['http://127.0.0.2:9/hook', '127.0.0.2 is a loopback address'],
    ['http://[::1]:9/hook', '::1 is a loopback address'],
    ['http://169.254.10.1/hook', '169.254.10.1 is a link-local address'],
    ['http://[fe80::1]/hook', 'fe80::1 is a link-local address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata address'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254 is a cloud metadata address'],
    ['http://[::ffff:10.0.0.5]/hook', '::ffff:a00:5 is a private address'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe is a cloud metadata address'],
    ['http://[2002:a9fe:a9fe::1]/', '2002:a9fe:a9fe::1 is a cloud metadata address'],
    ['http://[2002:7f00:1::]/hook', '2002:7f00:1:: is a loopback address'],
    ['http://[64:ff9b::7f00:1]/hook', '64:ff9b::7f00:1 is a loopback address'],
    ['http://[64:ff9b::a00:5]/hook', '64:ff9b::a00:5 is a private address'],
  ];
  const NAMES: [host: string, hidden: string][] = [
    [testDnsName('10.0.0.5'), '10.0.0.5'],
    [testDnsName('127.0.0.2'), '127.0.0.2'],
    [testDnsName('169.254.169.254'), '169.254.169.254'],
    [testDnsName('::ffff:a9fe:a9fe'), '::ffff:a9fe:a9fe'],
    [testDnsName('2002:a9fe:a9fe::1'), '2002:a9fe:a9fe::1'],
    [testDnsName('64:ff9b::a00:5'), '64:ff9b::a00:5'],
    [testDnsName('fd12:3456::1'), 'fd12:3456::1'],
  ];
  const CASES: [url: string, message: string, hidden?: string][] = [
    ...LITERALS,
    ...NAMES.map(([host, hidden]): [string, string, string] => [`http://${host}/hook`, `${host} resolves to a private address`, hidden]),
  ];

  beforeAll(async () => {
    tenant = await createOversightTenant('SSRF');
    platform = await createPlatformAccount('SSRF');
    const grant = await http<{ media_key: string; media_upload_url: string }>('POST', '/v1/signed-url', {
      headers: { 'x-api-key': tenant.key },
      body: { configuration_id: tenant.configurationId },
    });
    mediaKey = grant.body.media_key;
    const upload = await fetch(grant.body.media_upload_url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'media' });
    expect(upload.status).toBe(200);
  });

  const tasksOf = async (workstreamId: string) =>
    (await http<TaskPage>('GET', `/admin/v1/tasks?workstream_id=${workstreamId}`, { headers: adminHeaders() })).body.tasks.length;

  it('refuses oversight task callbacks (422 naming callback_url); names never reveal what they resolve to', async () => {
    for (const [url, reason, hidden] of CASES) {
      const result = await http<{ message: string; errors: { field: string; message: string }[] }>('POST', '/v1/tasks', {
        headers: { 'x-api-key': tenant.key },
        body: { media_key: mediaKey, configuration_id: tenant.configurationId, callback_url: url },
      });
      expect({ url, status: result.status, body: result.body }).toEqual({
        url,
        status: 422,
        body: {
          message: `Invalid request: ${REFUSED_PREFIX}${reason}`,
          errors: [{ field: 'callback_url', message: `${REFUSED_PREFIX}${reason}` }],
        },
      });
      if (hidden) expect(result.text).not.toContain(hidden);
    }
    expect(await tasksOf(tenant.workstreamId)).toBe(0);
  });

  it('refuses platform run callbacks of v4 (422) and v3 (400, code 102); no run is created', async () => {
    for (const [url, reason, hidden] of CASES) {
      const v4 = await http<{ message: string }>('POST', '/v4/runs', {
        headers: platform.auth,
        body: { line_id: platform.lineId, units: [{}], callback_url: url },
      });
      expect({ url, status: v4.status, body: v4.body }).toEqual({
        url,
        status: 422,
        body: { message: `Invalid request: ${REFUSED_PREFIX}${reason}` },
      });
      const v3 = await http('POST', '/v3/tasks', {
        headers: platform.auth,
        body: { template_id: platform.lineId, resources: [{}], callback_url: url },
      });
      expect({ url, status: v3.status, body: v3.body }).toEqual({
        url,
        status: 400,
        body: { status: 102, error: 'Data is invalid', detail: `${REFUSED_PREFIX}${reason}` },
      });
      if (hidden) expect(v4.text + v3.text).not.toContain(hidden);
    }
    expect(await listedRuns({ account_id: platform.id })).toEqual([]);
  });

  describe('at delivery time, when DNS answers differently than at creation', () => {
    // Both receivers are real HTTP servers on loopback: 127.0.0.1 is the one address the stack lets
    // through; 127.0.0.2 is loopback too, but refused, and would get every request the guard let pass.
    const allowed = new LoopbackReceiver('127.0.0.1');
    const refused = new LoopbackReceiver('127.0.0.2');
    let worker: Record<string, string>;

    beforeAll(async () => {
      await Promise.all([allowed.start(), refused.start()]);
      worker = await createWorker();
    });

    afterAll(() => Promise.all([allowed.stop(), refused.stop()]));

    /** A URL on `receiver` through a name that resolves to a public address first and to the receiver's after. */
    const rebinding = (receiver: LoopbackReceiver, host: string, path: string) => {
      const url = new URL(receiver.url(path));
      url.hostname = testDnsName(PUBLIC, host);
      return url.toString();
    };

    /** Creates a one-unit run with `callbackUrl` and finishes it, so its callback is due. */
    async function processedRun(callbackUrl: string): Promise<string> {
      const created = await http<{ id: string }>('POST', '/v4/runs', {
        headers: platform.auth,
        body: { line_id: platform.lineId, units: [{ n: 1 }], callback_url: callbackUrl },
      });
      expect(created.status).toBe(201);
      const unit = await nextUnit(worker, platform.lineId);
      expect(unit?.run_id).toBe(created.body.id);
      expect((await completeUnit(worker, unit!.assignment_id, { output: { ok: true } })).status).toBe(200);
      return created.body.id;
    }

    /**
     * Creates an image task per URL and ends each with a flag (task.error, due for delivery at once). Tasks
     * other files left queued are flagged on the way, as their tests do.
     */
    async function erroredTasks(callbackUrls: string[]): Promise<string[]> {
      const taskIds: string[] = [];
      for (const callbackUrl of callbackUrls) taskIds.push((await createImageTask(tenant, { callbackUrl })).taskId);
      const waiting = new Set(taskIds);
      await eventually(
        async () => {
          const next = await http<{ assignment_id: string; task_id: string }>('POST', '/workforce/v1/assignments/next', {
            headers: worker,
            body: { kind: 'task' },
          });
          if (next.status !== 200) throw new Error(`next answered ${next.status} before tasks ${[...waiting].join(', ')} were offered`);
          await http('POST', `/workforce/v1/assignments/${next.body.assignment_id}/flag`, {
            headers: worker,
            body: { reason: 'ssrf test' },
          });
          waiting.delete(next.body.task_id);
          return waiting.size === 0 || undefined;
        },
        { what: `tasks ${taskIds.join(', ')} to be leased and flagged` },
      );
      return taskIds;
    }

    /** The caller's delivery that `matches`, as the Delivery API shows it once it has an attempt. */
    async function attempted(
      headers: Record<string, string>,
      matches: (delivery: DeliveryView) => boolean,
      what: string,
    ): Promise<DeliveryDetailView> {
      return eventually(
        async () => {
          const page = await http<DeliveryPage>('GET', '/v1/deliveries?limit=100', { headers });
          const id = page.body.deliveries?.find(matches)?.id;
          if (!id) return undefined;
          const detail = await http<DeliveryDetailView>('GET', `/v1/deliveries/${id}`, { headers });
          return detail.body.attempts?.length ? detail.body : undefined;
        },
        { what: `an attempt of ${what}`, timeoutMs: 60_000 },
      );
    }

    it('refuses a run callback whose name rebinds to a private address, and delivers one that rebinds to the allowed one', async () => {
      const refusedUrl = rebinding(refused, '127.0.0.2', '/run');
      const refusedHost = new URL(refusedUrl).hostname;
      const allowedUrl = rebinding(allowed, '127.0.0.1', '/run');
      const refusedRun = await processedRun(refusedUrl);
      const allowedRun = await processedRun(allowedUrl);

      // The control: the dispatcher resolved the name again and connected to the second answer.
      await eventually(() => allowed.on('/run').length === 1, { what: 'the callback through the name that rebinds to 127.0.0.1' });
      expect(JSON.parse(allowed.on('/run')[0].rawBody.toString('utf8'))).toMatchObject({ id: allowedRun, status: 'Processed' });

      const delivery = await attempted(
        platform.auth,
        (d) => d.run_id === refusedRun,
        'the run callback through the name that rebinds to 127.0.0.2',
      );
      const refusal = `refused: ${REFUSED_PREFIX}${refusedHost} resolves to a private address`;
      expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: refusal, response_excerpt: null });
      expect(delivery.last_error).toBe(refusal);
      expect(JSON.stringify(delivery)).not.toContain('127.0.0.2');
      expect(refused.requests).toEqual([]);
    });

    it('refuses a task webhook whose name rebinds to a private address', async () => {
      const url = rebinding(refused, '127.0.0.2', '/task');
      const host = new URL(url).hostname;
      const [taskId] = await erroredTasks([url]);
      const delivery = await attempted({ 'x-api-key': tenant.key }, (d) => d.task_id === taskId, `the webhook of task ${taskId}`);
      expect(delivery.attempts[0]).toMatchObject({
        status_code: null,
        error: `refused: ${REFUSED_PREFIX}${host} resolves to a private address`,
      });
      expect(JSON.stringify(delivery)).not.toContain('127.0.0.2');
      expect(refused.requests).toEqual([]);
    });

    /** What a name may rebind to after creation, beyond loopback: private, metadata, IPv4-mapped, 6to4, NAT64. */
    const REBOUND = ['10.0.0.5', '169.254.169.254', '::ffff:a9fe:a9fe', '2002:a9fe:a9fe::1', '64:ff9b::a00:5'];

    it('every kind the names rebind to is one the stack refuses: outside its WEBHOOK_ALLOW_PRIVATE, and PUBLIC is let through', () => {
      const { allowPrivate, allowedRanges } = loadEnv(BaseEnv, testStack().appEnv).callbackPolicy;
      const allowed = (allowedRanges ?? []).map((text) => parseAddressRange(text)!);
      expect({ allowPrivate, allowedRanges }).toEqual({ allowPrivate: false, allowedRanges: ['127.0.0.1'] });
      expect(REBOUND.map((address) => [address, blockedAddressReason(address, allowed)])).toEqual([
        ['10.0.0.5', 'a private address'],
        ['169.254.169.254', 'a cloud metadata address'],
        ['::ffff:a9fe:a9fe', 'a cloud metadata address'],
        ['2002:a9fe:a9fe::1', 'a cloud metadata address'],
        ['64:ff9b::a00:5', 'a private address'],
      ]);
      expect(blockedAddressReason(PUBLIC, allowed)).toBeUndefined();
    });

    /** Expects the delivery's first attempt refused as `host` resolving to a private address, naming no address. */
    function expectRefusedWithoutAddress(delivery: DeliveryDetailView, host: string, address: string): void {
      const refusal = `refused: ${REFUSED_PREFIX}${host} resolves to a private address`;
      expect({ address, attempt: delivery.attempts[0], lastError: delivery.last_error }).toMatchObject({
        address,
        attempt: { status_code: null, error: refusal, response_excerpt: null },
        lastError: refusal,
      });
      expect(JSON.stringify(delivery)).not.toContain(address);
    }

    it('refuses run callbacks whose names rebind to each other non-public kind, naming no address', async () => {
      const cases = [];
      for (const address of REBOUND) {
        const url = `http://${testDnsName(PUBLIC, address)}:9/run`;
        cases.push({ address, host: new URL(url).hostname, runId: await processedRun(url) });
      }
      for (const { address, host, runId } of cases) {
        const delivery = await attempted(platform.auth, (d) => d.run_id === runId, `the run callback through ${host}`);
        expectRefusedWithoutAddress(delivery, host, address);
      }
    });

    it('refuses task webhooks whose names rebind to each other non-public kind, naming no address', async () => {
      const urls = REBOUND.map((address) => `http://${testDnsName(PUBLIC, address)}:9/task`);
      const taskIds = await erroredTasks(urls);
      for (const [i, taskId] of taskIds.entries()) {
        const host = new URL(urls[i]).hostname;
        const delivery = await attempted({ 'x-api-key': tenant.key }, (d) => d.task_id === taskId, `the webhook of task ${taskId}`);
        expectRefusedWithoutAddress(delivery, host, REBOUND[i]);
      }
    });

    it('a connection error names the failure, not the address the name resolved to', async () => {
      // 127.0.0.1 is let through; nothing listens on this port of it.
      const url = `http://${testDnsName(PUBLIC, '127.0.0.1')}:${await freePort()}/run`;
      const runId = await processedRun(url);
      const delivery = await attempted(platform.auth, (d) => d.run_id === runId, 'the run callback to a closed port');
      expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: 'ECONNREFUSED: the receiver refused the connection' });
      expect(delivery.last_error).toBe('ECONNREFUSED: the receiver refused the connection');
      expect(JSON.stringify(delivery)).not.toContain('127.0.0.1');
    });
  });
});
