import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { DeliveryRequestedEvent, type EventEnvelope, Topic, validateContract } from '@workline/contracts';
import { DeliveriesService } from '@workline/webhook-dispatcher';
import { EventBatchPattern, type KafkaBatchContext } from '@workline/messaging';
import { REQUEST_ID_KAFKA_HEADER } from '@workline/observability';

/**
 * Takes delivery requests in from Kafka, a partition's drained batch at a time (one intake statement per
 * batch); an invalid one fails its batch, whose requests are then taken one by one, so it alone goes to
 * the dead-letter topic with the reason.
 */
@Controller()
export class DeliveryRequestedEventController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @EventBatchPattern(Topic.DeliveryRequested)
  async onDeliveryRequested(@Payload() envelopes: EventEnvelope<unknown>[], @Ctx() context: KafkaBatchContext): Promise<void> {
    await this.deliveries.intake(
      envelopes.map((envelope, index) => ({
        event: validateContract(DeliveryRequestedEvent, envelope?.data),
        requestId: context.messages[index].headers[REQUEST_ID_KAFKA_HEADER],
      })),
    );
  }
}
