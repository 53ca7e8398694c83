import {
  adminCreate,
  adminHeaders,
  type AppInstance,
  createPlatformAccount,
  createWorker,
  eventually,
  http,
  type HttpResult,
  startGateway,
} from '@workline/testing';
import { randomBytes } from 'node:crypto';

/** The low limits of the gateway that shows them: the fleet's gateways have limits no test reaches (tools/stack/test-env.ts). */
const LIMITS = { failedAuth: 3, workPerMinute: 4, tasksPerDay: 2 };

/** The statuses each limit's requests got, in order. */
export interface LimitAnswers {
  /** Requests with a wrong (well-formed) API key: 401, or 429 past AUTH_FAILURE_LIMIT. */
  wrongKeys: number[];
  /** Work API calls of one worker (`next` on an empty line): 204, or 429 past RATE_LIMIT_WORK_PER_MINUTE. */
  workCalls: number[];
  /** Task creations of one workstream: 201, or 429 past TASK_QUOTA_PER_DAY. */
  taskCreations: number[];
}

/**
 * docs/decisions.md, "Redis outages", shown directly: a gateway of its own (not behind the fleet's
 * balancer: no client stream uses it) with low limits for the failed-authentication check, a rate limit and
 * the task quota. With Redis up each limit refuses (429) past its value; with Redis down each fails open:
 * every wrong key is checked and answered 401, every call is served, every task is created.
 */
export class RedisLimitsProbe {
  private constructor(
    private readonly gateway: AppInstance & { url: string },
    private readonly apiKey: string,
    private readonly configurationId: string,
    private readonly worker: Record<string, string>,
    private readonly lineId: string,
  ) {}

  static async start(tag: string): Promise<RedisLimitsProbe> {
    const account = await adminCreate<{ id: string }>('/accounts', { name: `Limits ${tag}` });
    const workstream = await adminCreate<{ id: string }>('/workstreams', { account_id: account.id, name: 'Limits', use_cases: [] });
    const { key } = await adminCreate<{ key: string }>(`/workstreams/${workstream.id}/api-keys`, {});
    const configuration = await adminCreate<{ id: string }>(`/workstreams/${workstream.id}/configurations`, { name: 'Limits' });
    // A line without runs: `next` on it answers 204, and leases nothing the scenario's bots wait for.
    const platform = await createPlatformAccount(`Limits ${tag}`);
    const gateway = await startGateway({
      AUTH_FAILURE_LIMIT: String(LIMITS.failedAuth),
      RATE_LIMIT_WORK_PER_MINUTE: String(LIMITS.workPerMinute),
      TASK_QUOTA_PER_DAY: String(LIMITS.tasksPerDay),
    });
    return new RedisLimitsProbe(gateway, key, configuration.id, await createWorker(), platform.lineId);
  }

  private async send<T>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<HttpResult<T>> {
    return http<T>(method, `${this.gateway.url}${path}`, { headers, body, timeoutMs: 30_000 });
  }

  /** A task of the probe's workstream (grant, PUT, creation): the creation's status. */
  private async createTask(): Promise<number> {
    const headers = { 'x-api-key': this.apiKey };
    const grant = await this.send<{ media_upload_url: string; media_key: string }>('POST', '/v1/signed-url', headers, {
      configuration_id: this.configurationId,
    });
    if (grant.status !== 200) return grant.status;
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(16)]);
    const put = await fetch(grant.body.media_upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
    if (put.status !== 200) return put.status;
    const task = await this.send('POST', '/v1/tasks', headers, { media_key: grant.body.media_key, configuration_id: this.configurationId });
    return task.status;
  }

  /**
   * Twice as many requests as each limit allows, and one more, one after the other: however a window's end
   * splits them, one window gets more than the limit.
   */
  async ask(): Promise<LimitAnswers> {
    // Well-formed (prefix and length of a real key), so it is checked and counted, not refused unread.
    const wrongKey = `${this.apiKey.slice(0, this.apiKey.lastIndexOf('_'))}_${randomBytes(24).toString('base64url')}`;
    const answers: LimitAnswers = { wrongKeys: [], workCalls: [], taskCreations: [] };
    for (let i = 0; i <= 2 * LIMITS.failedAuth; i++)
      answers.wrongKeys.push((await this.send('GET', '/v1/tasks/no-such-task', { 'x-api-key': wrongKey })).status);
    for (let i = 0; i <= 2 * LIMITS.workPerMinute; i++)
      answers.workCalls.push(
        (await this.send('POST', '/workforce/v1/assignments/next', this.worker, { kind: 'unit', line_id: this.lineId })).status,
      );
    for (let i = 0; i <= 2 * LIMITS.tasksPerDay; i++) answers.taskCreations.push(await this.createTask());
    return answers;
  }

  /** Redis up: each limit refuses (429) past its value, and answers as without a limit before. */
  static expectEnforced(answers: LimitAnswers): void {
    const refusedPastLimit = (statuses: number[], served: number) => {
      expect(statuses.filter((s) => s !== served && s !== 429)).toEqual([]);
      expect(statuses).toContain(429);
    };
    refusedPastLimit(answers.wrongKeys, 401);
    refusedPastLimit(answers.workCalls, 204);
    refusedPastLimit(answers.taskCreations, 201);
  }

  /** Redis down: every limit fails open (docs/decisions.md, "Redis outages"): no 429 at all. */
  static expectFailedOpen(answers: LimitAnswers): void {
    expect(answers.wrongKeys).toEqual(Array(2 * LIMITS.failedAuth + 1).fill(401));
    expect(answers.workCalls).toEqual(Array(2 * LIMITS.workPerMinute + 1).fill(204));
    expect(answers.taskCreations).toEqual(Array(2 * LIMITS.tasksPerDay + 1).fill(201));
  }

  static describe(answers: LimitAnswers): string {
    return `wrong keys ${answers.wrongKeys.join(' ')}; work calls ${answers.workCalls.join(' ')}; tasks ${answers.taskCreations.join(' ')}`;
  }

  /** Resolves once the gateway's GET /health answers 200 again (e.g. it is back on Redis). */
  async ready(): Promise<void> {
    await eventually(async () => (await this.send('GET', '/health', adminHeaders())).status === 200, {
      what: 'the low-limits gateway to be healthy',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
  }

  stop(): Promise<void> {
    return this.gateway.stop();
  }
}
