import { Controller, Get, HttpCode, HttpStatus, Param, Post, Query, UseGuards } from '@nestjs/common';
import {
  type DeliveryDetailView,
  type DeliveryGetRequest,
  type DeliveryListRequest,
  type DeliveryPage,
  type DeliveryScope,
  type DeliveryView,
  ListDeliveriesQuery,
  RpcPattern,
  ServiceName,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { ApiKeyOrBasicGuard } from './api-key-or-basic.guard';
import { DeliveryAnswer, DeliveryDetailAnswer, DeliveryPageAnswer } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/** Whose deliveries the caller sees: see DeliveryScope and docs/webhooks.md. */
export function deliveryScopeOf(principal: Principal): DeliveryScope {
  switch (principal.kind) {
    case 'api-key':
      return principal.workstreamId
        ? { kind: 'workstream', account_id: principal.accountId, workstream_id: principal.workstreamId }
        : { kind: 'account-workstreams', account_id: principal.accountId };
    case 'account':
      return { kind: 'platform', account_id: principal.accountId };
    default:
      throw new Error(`no delivery scope for a ${principal.kind} principal`);
  }
}

/** Delivery API (docs/webhooks.md): the caller's webhook deliveries, their attempts, redelivery. */
@Controller('v1/deliveries')
@ApiArea('deliveries', 'apiKeyOrBasic')
@UseGuards(ApiKeyOrBasicGuard)
export class DeliveriesController {
  constructor(private readonly rpc: KafkaRpcClient) {}

  @Get()
  @ApiDoc({
    summary: 'List webhook and callback deliveries',
    doc: 'docs/webhooks.md',
    query: ListDeliveriesQuery,
    ok: [200, 'A page of deliveries', DeliveryPageAnswer],
    errors: [422],
  })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListDeliveriesQuery): Promise<DeliveryPage> {
    const request: DeliveryListRequest = { ...query, scope: deliveryScopeOf(principal) };
    return this.rpc.request<DeliveryPage>(ServiceName.WebhookDispatcher, RpcPattern.DeliveryList, request);
  }

  @Get(':id')
  @ApiDoc({
    summary: 'Read a delivery with its attempts',
    doc: 'docs/webhooks.md',
    ok: [200, 'The delivery', DeliveryDetailAnswer],
    errors: [404],
  })
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<DeliveryDetailView> {
    const request: DeliveryGetRequest = { scope: deliveryScopeOf(principal), delivery_id: id };
    return this.rpc.request<DeliveryDetailView>(ServiceName.WebhookDispatcher, RpcPattern.DeliveryGet, request);
  }

  @Post(':id/redeliver')
  @ApiDoc({ summary: 'Send a delivery again', doc: 'docs/webhooks.md', ok: [202, 'The new delivery', DeliveryAnswer], errors: [404] })
  @HttpCode(HttpStatus.ACCEPTED)
  redeliver(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<DeliveryView> {
    const request: DeliveryGetRequest = { scope: deliveryScopeOf(principal), delivery_id: id };
    return this.rpc.request<DeliveryView>(ServiceName.WebhookDispatcher, RpcPattern.DeliveryRedeliver, request);
  }
}
