import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiKeyGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';
import { ApiKeyDescriptionAnswer } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/** `GET /v1/api-key`: which key is calling and what it may reach (lets a client check its key). */
@Controller('v1/api-key')
@ApiArea('identity', 'apiKey')
@UseGuards(ApiKeyGuard)
export class ApiKeyController {
  @Get()
  @ApiDoc({
    summary: 'Describe the API key used',
    doc: 'docs/admin-api.md',
    ok: [200, 'The key: id, scope, account, workstream', ApiKeyDescriptionAnswer],
  })
  describe(@CurrentPrincipal() key: PrincipalOf<'api-key'>): {
    id: string;
    scope: 'account' | 'workstream';
    account_id: string;
    workstream_id: string | null;
  } {
    return {
      id: key.keyId,
      scope: key.workstreamId ? 'workstream' : 'account',
      account_id: key.accountId,
      workstream_id: key.workstreamId,
    };
  }
}
