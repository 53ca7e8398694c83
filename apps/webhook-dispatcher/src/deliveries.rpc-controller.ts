import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  type DeliveryDetailView,
  DeliveryGetRequest,
  DeliveryListRequest,
  type DeliveryPage,
  DeliveryRedeliverRequest,
  type DeliveryView,
  RpcPattern,
  validateContract,
} from '@workline/contracts';
import { IdempotentPattern, type KafkaMessageContext } from '@workline/messaging';
import { DeliveriesService } from '@workline/webhook-dispatcher';

/** The Delivery API's questions, asked by the gateway on the caller's behalf (scope included). */
@Controller()
export class DeliveriesRpcController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @IdempotentPattern(RpcPattern.DeliveryList)
  list(@Payload() payload: unknown): Promise<DeliveryPage> {
    return this.deliveries.list(validateContract(DeliveryListRequest, payload));
  }

  @IdempotentPattern(RpcPattern.DeliveryGet)
  get(@Payload() payload: unknown): Promise<DeliveryDetailView> {
    return this.deliveries.get(validateContract(DeliveryGetRequest, payload));
  }

  @IdempotentPattern(RpcPattern.DeliveryRedeliver)
  redeliver(@Payload() payload: unknown, @Ctx() context: KafkaMessageContext): Promise<DeliveryView> {
    return this.deliveries.redeliver(validateContract(DeliveryRedeliverRequest, payload), context.meta.correlationId);
  }
}
