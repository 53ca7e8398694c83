import { Injectable } from '@nestjs/common';
import type { MediaGrantCreateReply, MediaGrantCreateRequest } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { randomBytes } from 'node:crypto';
import { ConfigurationsService } from './configurations.service';

/** Upload grants: the media_key behind a signed upload URL, bound to a workstream and configuration. */
@Injectable()
export class MediaGrantsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly configurations: ConfigurationsService,
  ) {}

  async create(request: MediaGrantCreateRequest): Promise<MediaGrantCreateReply> {
    await this.configurations.ofWorkstream(request.workstream_id, request.configuration_id);
    const id = `med_${randomBytes(18).toString('base64url')}`;
    await this.prisma.oversightMediaGrant.create({
      data: {
        id,
        workstreamId: request.workstream_id,
        accountId: request.account_id,
        configurationId: request.configuration_id,
        expiresAt: new Date(request.expires_at),
      },
    });
    return { media_key: id };
  }
}
