import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiKeyGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';

/** `GET /v1/api-key`: which key is calling and what it may reach (lets a client check its key). */
@Controller('v1/api-key')
@UseGuards(ApiKeyGuard)
export class ApiKeyController {
  @Get()
  describe(@CurrentPrincipal() key: PrincipalOf<'api-key'>): { id: string; scope: 'account' | 'workstream'; account_id: string; workstream_id: string | null } {
    return { id: key.keyId, scope: key.workstreamId ? 'workstream' : 'account', account_id: key.accountId, workstream_id: key.workstreamId };
  }
}
