import { dbQuery } from '@workline/testing';
import { pause, type FaultClient } from './client';
import type { WorkstreamKey } from './quality-stream';

const REDELIVER_EVERY_MS = 3000;

/**
 * (g) Redeliveries (the Delivery API) of task webhooks already delivered, every ~3 s while the faults go on:
 * each one answered 202 must arrive again (same delivery id, same body) with one more success recorded
 * (auditDeliveries).
 */
export class RedeliveryStream {
  /** Deliveries redelivered, with the requests each redelivery took. */
  readonly redelivered = new Map<string, number>();
  private running?: Promise<void>;

  constructor(
    private readonly client: FaultClient,
    private readonly workstream: WorkstreamKey,
    private readonly state: { faultsDone: boolean },
  ) {}

  start(): void {
    this.running = (async () => {
      while (!this.state.faultsDone) {
        await pause(REDELIVER_EVERY_MS);
        const delivered = await dbQuery<{ id: string }>(
          "select id from delivery where workstream_id = $1 and status = 'delivered' order by delivered_at desc limit 10",
          [this.workstream.id],
        ).catch(() => []);
        const pick = delivered.find((d) => !this.redelivered.has(d.id));
        if (!pick) continue;
        const answer = await this.client.send<{ id: string; status: string }>('POST', `/v1/deliveries/${pick.id}/redeliver`, {
          'x-api-key': this.workstream.key,
        });
        if (answer.result?.status === 202 && answer.result.body.id === pick.id && answer.result.body.status === 'pending')
          this.redelivered.set(pick.id, answer.attempts);
        else this.client.unexpected(`redeliver ${pick.id}`, answer.result);
      }
    })();
  }

  finished(): Promise<void> {
    return this.running ?? Promise.resolve();
  }
}
