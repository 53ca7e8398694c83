import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { IdempotentPattern } from '@workline/messaging';
import {
  ConfigurationCreateRequest,
  ConfigurationGetRequest,
  RpcPattern,
  validateContract,
  type ConfigurationView,
} from '@workline/contracts';
import { ConfigurationsService } from '@workline/oversight';

@Controller()
export class ConfigurationsRpcController {
  constructor(private readonly configurations: ConfigurationsService) {}

  @MessagePattern(RpcPattern.ConfigurationCreate)
  create(@Payload() payload: unknown): Promise<ConfigurationView> {
    return this.configurations.create(validateContract(ConfigurationCreateRequest, payload));
  }

  @IdempotentPattern(RpcPattern.ConfigurationGet)
  get(@Payload() payload: unknown): Promise<ConfigurationView> {
    return this.configurations.get(validateContract(ConfigurationGetRequest, payload));
  }
}
