import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { type EventEnvelope, RunAbortRequestedEvent, Topic, validateContract } from '@workline/contracts';
import { Inbox } from '@workline/messaging';
import { RunsService } from '@workline/platform-runs';

/** Applies accepted aborts (POST /v4/runs/:id/abort answers 202 before this runs). */
@Controller()
export class RunAbortEventController {
  constructor(
    private readonly inbox: Inbox,
    private readonly runs: RunsService,
  ) {}

  @EventPattern(Topic.RunAbortRequested)
  async onAbortRequested(@Payload() envelope: EventEnvelope<unknown>): Promise<void> {
    const event = validateContract(RunAbortRequestedEvent, envelope.data);
    const result = await this.inbox.once('platform-runs.run-abort', envelope.id, (tx) => this.runs.applyAbort(tx, event.run_id));
    if (result.applied && result.result) this.runs.pokeRelay();
  }
}
