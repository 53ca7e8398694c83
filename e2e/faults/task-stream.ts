import { FsBlobStore } from '@workline/blob-store';
import { mediaBlobKey } from '@workline/contracts';
import { verify } from '@workline/signature';
import { dbQuery, eventually, type LoopbackReceiver, testStack } from '@workline/testing';
import { createHash, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { pause, type FaultClient, type Worker } from './client';
import type { WorkstreamKey } from './quality-stream';

const MEDIA_TYPE = 'image/png';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What a client sent to create one task (all answered 201 are compared with what is stored). */
interface SentTask {
  mediaKey: string;
  mediaSha256: string;
  configurationId: string;
  callbackUrl: string;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * (c) Oversight tasks, one every ~300 ms: an upload grant, the PUT of its bytes (a PNG of random bytes), then
 * the task with a callback_url and an Idempotency-Key (the same on each retry: a retry after a lost 201 gets
 * the same task), retrying each step; bot workers complete (or flag every fourth) what they lease.
 */
export class TaskStream {
  sent = 0;
  readonly accepted = new Map<string, SentTask>();
  readonly outcome = new Map<string, 'COMPLETED' | 'ERROR'>();
  /** What the bot that closed each COMPLETED task sent. */
  readonly results = new Map<string, { updated_tags: object[]; metadata: object[] }>();
  readonly counters = { retried: 0, leasesLost: 0 };
  private tasksDone = false;
  private stream?: Promise<void>;
  private bots?: Promise<unknown>;

  constructor(
    private readonly client: FaultClient,
    private readonly workstream: WorkstreamKey,
    private readonly configurationId: string,
    private readonly receiver: LoopbackReceiver,
    private readonly callback: { path: string; url: string },
    private readonly state: { faultsDone: boolean },
  ) {}

  private get headers() {
    return { 'x-api-key': this.workstream.key };
  }

  start(workers: Worker[]): void {
    this.stream = (async () => {
      for (let i = 0; !this.state.faultsDone; i++) {
        this.sent++;
        const grant = await this.client.send<{ media_upload_url: string; media_key: string }>('POST', '/v1/signed-url', this.headers, {
          configuration_id: this.configurationId,
        });
        if (grant.result?.status !== 200) {
          this.client.unexpected('signed-url', grant.result);
          continue;
        }
        const png = Buffer.concat([PNG_SIGNATURE, randomBytes(32)]);
        const upload = await this.client.put(grant.result.body.media_upload_url, MEDIA_TYPE, png);
        if (upload.result?.status !== 200) {
          this.client.unexpected('media upload', upload.result);
          continue;
        }
        const idempotencyKey = `fault-task-${i}-${randomBytes(8).toString('hex')}`;
        const sent: SentTask = {
          mediaKey: grant.result.body.media_key,
          mediaSha256: sha256(png),
          configurationId: this.configurationId,
          callbackUrl: this.callback.url,
        };
        const task = await this.client.send<{ task_id: string }>(
          'POST',
          '/v1/tasks',
          { ...this.headers, 'idempotency-key': idempotencyKey },
          { media_key: sent.mediaKey, configuration_id: sent.configurationId, callback_url: sent.callbackUrl },
        );
        if (grant.attempts + upload.attempts + task.attempts > 3) this.counters.retried++;
        if (task.result?.status === 201) this.accepted.set(task.result.body.task_id, sent);
        else this.client.unexpected('create task', task.result);
        await pause(300);
      }
    })();
    const bot = async (worker: Worker, b: number) => {
      for (let n = 0; !this.tasksDone; n++) {
        const leased = await this.client.nextAssignment<{ assignment_id: string; task_id: string }>(
          worker,
          { kind: 'task' },
          this.counters,
        );
        if (!leased) continue;
        const { assignment_id: assignment, task_id: taskId } = leased;
        const flag = (n + b) % 4 === 0;
        const result = {
          updated_tags: [{ value: `ok-${taskId.slice(-4)}`, confidence_score: 0.9 }],
          metadata: [{ key: 'bot', value: String(b) }],
        };
        const done = await this.client.closeAssignment(worker, assignment, flag, flag ? { reason: 'bot flags every fourth task' } : result);
        const answer = done.result;
        if (answer?.status === 200 || (answer?.status === 409 && /already closed/.test(answer.text))) {
          this.outcome.set(taskId, flag ? 'ERROR' : 'COMPLETED');
          if (!flag) this.results.set(taskId, result);
        } else if (!(answer?.status === 404 || (answer?.status === 409 && /lease expired/.test(answer.text)))) {
          // The lease ran out while the bot waited for an answer (its retries outlasted TASK_LEASE_SECONDS): the
          // task went back to the queue (409), or another bot holds it now (404); it is done again either way.
          this.client.unexpected(`${flag ? 'flag' : 'complete'} task ${taskId}`, answer);
        }
      }
    };
    this.bots = Promise.all(workers.map(bot));
  }

  /** Progress: tasks answered 201. */
  get created(): number {
    return this.accepted.size;
  }

  /** Once the stream has stopped: every task of the workstream final (also one whose 201 a fault swallowed), the bots stopped. */
  async finished(): Promise<void> {
    await this.stream;
    await eventually(
      async () =>
        (
          await dbQuery<{ n: number }>(
            `select count(*)::int as n from oversight_task where workstream_id = $1 and state not in ('COMPLETED', 'ERROR')`,
            [this.workstream.id],
          )
        )[0].n === 0,
      { what: 'every oversight task to be final', timeoutMs: 180_000, intervalMs: 1000 },
    );
    this.tasksDone = true;
    await this.bots;
  }

  /**
   * Every task answered 201 is stored once (nothing else was created: retries carry an Idempotency-Key) with
   * what was sent (media key, configuration, callback URL, media type, and the media's bytes in the blob
   * store), final as its bot left it, a COMPLETED one with the tags and metadata its bot sent; every task got
   * exactly one webhook delivery: one X-SVC-Delivery-Id, one event uuid, the event type of its state, a valid
   * signature (checked as on arrival); auditDeliveries holds each to its delivery row.
   */
  async audit(): Promise<Record<string, string | number>> {
    const rows = await dbQuery<{
      id: string;
      state: string;
      updated_tags: unknown;
      metadata: unknown;
      media_key: string;
      media_type: string;
      configuration_id: string;
      callback_url: string | null;
    }>(
      'select id, state, updated_tags, metadata, media_key, media_type, configuration_id, callback_url from ' +
        'oversight_task where workstream_id = $1',
      [this.workstream.id],
    );
    expect(rows.map((t) => t.id).sort()).toEqual([...this.accepted.keys()].sort());
    expect(rows.filter((t) => t.state !== 'COMPLETED' && t.state !== 'ERROR')).toEqual([]);
    expect(rows.filter((t) => this.outcome.get(t.id) !== t.state)).toEqual([]);
    expect(
      rows.filter(
        (t) =>
          t.state === 'COMPLETED' && !isDeepStrictEqual({ updated_tags: t.updated_tags, metadata: t.metadata }, this.results.get(t.id)),
      ),
    ).toEqual([]);
    const blobs = new FsBlobStore(testStack().appEnv.BLOB_DIR);
    const inputMismatches: unknown[] = [];
    for (const task of rows) {
      const sent = this.accepted.get(task.id)!;
      const media = await blobs.get(mediaBlobKey(task.media_key));
      const chunks: Buffer[] = [];
      if (media) for await (const chunk of media.stream) chunks.push(chunk as Buffer);
      const stored = {
        mediaKey: task.media_key,
        mediaSha256: media ? sha256(Buffer.concat(chunks)) : '(no media stored)',
        configurationId: task.configuration_id,
        callbackUrl: task.callback_url,
      };
      if (!isDeepStrictEqual(stored, sent) || task.media_type !== MEDIA_TYPE)
        inputMismatches.push({ id: task.id, stored, sent, mediaType: task.media_type });
    }
    expect(inputMismatches).toEqual([]);

    const byTask = new Map<
      string,
      { deliveryIds: Set<string>; uuids: Set<string>; types: Set<string>; requests: number; badSignatures: number }
    >();
    const hooks = () => this.receiver.on(this.callback.path);
    await eventually(
      () => new Set(hooks().map((r) => (JSON.parse(r.rawBody.toString('utf8')) as { task_id: string }).task_id)).size >= rows.length,
      {
        what: `a webhook for each of the ${rows.length} tasks`,
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
    for (const request of hooks()) {
      const event = JSON.parse(request.rawBody.toString('utf8')) as { task_id: string; uuid: string; event_type: string };
      const entry = byTask.get(event.task_id) ?? {
        deliveryIds: new Set(),
        uuids: new Set(),
        types: new Set(),
        requests: 0,
        badSignatures: 0,
      };
      entry.deliveryIds.add(String(request.headers['x-svc-delivery-id']));
      entry.uuids.add(event.uuid);
      entry.types.add(event.event_type);
      entry.requests++;
      // Checked as the receiver did on arrival (the 5-minute freshness window is relative to then).
      if (
        !verify(String(request.headers['x-svc-signature']), request.rawBody, this.workstream.key, {
          now: Math.floor(request.receivedAt / 1000),
        }).ok
      )
        entry.badSignatures++;
      byTask.set(event.task_id, entry);
    }
    expect([...byTask.keys()].filter((id) => !this.accepted.has(id))).toEqual([]);
    const wrong = rows.flatMap((t): object[] => {
      const hook = byTask.get(t.id);
      if (!hook) return [{ id: t.id, state: t.state, webhooks: 0 }];
      const type = t.state === 'COMPLETED' ? 'task.result_available' : 'task.error';
      const ok =
        hook.deliveryIds.size === 1 && hook.uuids.size === 1 && hook.types.size === 1 && hook.types.has(type) && hook.badSignatures === 0;
      return ok
        ? []
        : [
            {
              id: t.id,
              state: t.state,
              deliveryIds: [...hook.deliveryIds],
              types: [...hook.types],
              requests: hook.requests,
              badSignatures: hook.badSignatures,
            },
          ];
    });
    expect(wrong).toEqual([]);
    const completed = rows.filter((t) => t.state === 'COMPLETED').length;
    const requests = [...byTask.values()].reduce((sum, w) => sum + w.requests, 0);
    const sentAndAnswered = `${this.sent} / ${this.accepted.size}`;
    return {
      'tasks sent / answered 201 (each stored once: media bytes, configuration, callback URL as sent)': sentAndAnswered,
      'tasks COMPLETED / ERROR (tags and metadata as the bot sent)': `${completed} / ${rows.length - completed}`,
      'task `next` calls retried (a lease may be orphaned)': this.counters.leasesLost,
      'task webhooks received (one delivery id each, signed, body = delivery row)': `${requests} requests for ${byTask.size} tasks`,
    };
  }
}
