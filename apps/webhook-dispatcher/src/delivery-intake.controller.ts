import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { DeliveryRequestedEvent, type EventEnvelope, Topic, validateContract } from '@workline/contracts';
import { DeliveriesService } from '@workline/delivery';
import { currentRequestId } from '@workline/observability';

/** Takes delivery requests in from Kafka; an invalid one goes to the dead-letter topic with the reason. */
@Controller()
export class DeliveryIntakeController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @EventPattern(Topic.DeliveryRequested)
  async onDeliveryRequested(@Payload() envelope: EventEnvelope<unknown>): Promise<void> {
    await this.deliveries.intake([{ event: validateContract(DeliveryRequestedEvent, envelope?.data), requestId: currentRequestId() }]);
  }
}
